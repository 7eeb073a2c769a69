"""Prospects area: Prospects saved by the browser extension (identity-provider JWT)."""
