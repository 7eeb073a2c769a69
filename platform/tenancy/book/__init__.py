"""Clients and policies on a tenant database: payloads, validation, queries and use cases.

Shared by the MCP v2 HTTP area and the local MCP server; knows nothing of HTTP or stdio.
"""
