"""What the service connects out to: the address policy, the checking resolver and the LLM
providers' HTTP clients."""
