"""The settings area's webhooks: registering receivers, their secrets and delivery log."""
