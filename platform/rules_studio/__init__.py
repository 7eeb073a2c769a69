"""Rule studio area: Rules: CRUD, simulate and execute."""
