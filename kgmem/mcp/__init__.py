"""The MCP server: kgmem's memory as tools for agent clients, over stdio or streamable HTTP."""
