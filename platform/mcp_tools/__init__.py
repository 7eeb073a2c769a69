"""MCP tools: the one registry and server that the local stdio server and the remote endpoint serve."""
