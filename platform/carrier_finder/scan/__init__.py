"""The scan sub-area: a business's website scanned, classified and matched; similar businesses."""
