"""HTTP plumbing of the service: route declarations and the request pipeline, bodies, errors,
OpenAPI, middlewares, rate limits and serving."""
