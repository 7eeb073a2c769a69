"""The market sub-area: the stored market (carriers, products, appetites) and its loading,
listings, search, scored matching, jurisdictions, product lines and classification."""
