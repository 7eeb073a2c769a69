"""Settings area: API keys and the tenant database connection."""
