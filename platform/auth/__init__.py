"""Who calls: route requirements and principals, the API key and identity-provider token
authenticators, the service's secret keys."""
