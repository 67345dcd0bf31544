"""kgmem: bi-temporal knowledge-graph memory for AI agents."""
