"""Webhooks: the event catalogue, the endpoints' table, the outbox (`publish`) and the delivery
job. Shared, because the rules area publishes, the settings area manages endpoints and the job
engine runs deliveries (docs/webhooks.md)."""
