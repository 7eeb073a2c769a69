"""Connectors area: E-mail sending, templates and logs; bring-your-own-key LLM providers."""
