"""Evaluation: compiling a ruleset and running it on the paths of docs/architecture.md.

`compiler.py` chooses the path of each call (closures, generated code, the direct path); the
reference interpreter (`interpreter.py`) is the oracle the others are tested against.
"""
