"""MCP v2 tenant API area: The tenant API (MCP v2): clients and policies, with an API key."""
