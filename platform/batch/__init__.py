"""Batch runs of a ruleset over cases (JSON lines): reading cases, evaluating, `expect` checks,
summaries and impact diffs; shared by `insureops rules simulate|diff` and the studio's simulate."""
