"""Bridges to other temporal-graph engines sharing kgmem's Neo4j graph (graphiti-core)."""
