"""Rules at work: published rulesets run by themselves on the workspace's records (bindings,
through the tenant database's outbox) and over the whole book (runs), their decisions written
into the tenant database as uw_scores and tasks, each once (docs/rules-at-work.md)."""
