"""Rule studio web page: the HTML page at /studio/ and its bundled assets (no CDN, no Node needed)."""
