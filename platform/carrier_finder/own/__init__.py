"""The own sub-area: a workspace's own carriers and products, their appetites rules of the rule
studio."""
