"""Tables several areas read, each with its queries: API keys, usage reports, prospects, LLM
provider keys; and the rule catalog port."""
