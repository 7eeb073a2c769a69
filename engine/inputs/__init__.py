"""Inputs: what a ruleset reads and how input JSON becomes runtime values.

`reads.py` finds the paths read, `projection.py` converts only those, `conversion.py` is the
full schema-guided conversion and `jsonio.py` the bounded JSON reader and writer.
"""
