"""Carrier finder area: Carriers, products and appetites; search, scored matching, classification
and website scans."""
