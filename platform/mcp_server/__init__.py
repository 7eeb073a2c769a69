"""The local MCP server (`insureops mcp`): the tenant API's tools over stdio, on DATABASE_URL."""
