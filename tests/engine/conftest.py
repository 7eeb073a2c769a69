"""Engine tests build IR by hand: make the builder module importable (tests run with
--import-mode=importlib, so a test folder is not on sys.path by itself)."""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
