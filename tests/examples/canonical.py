"""Whether texts are in `insureops rules fmt`'s canonical layout, cheaply: a memo of the
formatter's answers (tests/examples/canonical.sha256).

Formatting every example takes seconds; the memo maps a text's SHA-256 to its canonical text's
SHA-256, recorded under a fingerprint of the formatter's code (dsl's formatter, parser, grammar
and lark's version). A text found in the memo of the current fingerprint is answered from it; any
other text (an example edited since, or every text once the formatter changed) is formatted for
real, so a stale memo only costs time, never a wrong answer. Record it again with

    python -m tests.examples.canonical
"""

from __future__ import annotations

import hashlib
import sys
from functools import cache
from pathlib import Path

import lark

from insureops.dsl.formatter import format_source

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
MEMO = Path(__file__).with_name("canonical.sha256")
# What format_source's answer depends on besides the text.
FORMATTER_FILES = ("dsl/formatter.py", "dsl/parser.py", "dsl/larkplugins.py", "dsl/grammar.py",
                   "dsl/rules.lark", "dsl/diagnostics.py", "engine/ir/operators.py")


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@cache
def fingerprint() -> str:
    hasher = hashlib.sha256(lark.__version__.encode())
    for name in FORMATTER_FILES:
        hasher.update(name.encode() + b"\0" + (ROOT / name).read_bytes())
    return hasher.hexdigest()


@cache
def _memo() -> dict[str, str]:
    """text digest -> canonical text digest, when recorded under the current fingerprint."""
    if not MEMO.is_file():
        return {}
    lines = MEMO.read_text(encoding="ascii").splitlines()
    if not lines or lines[0] != f"fingerprint {fingerprint()}":
        return {}
    return dict(line.split() for line in lines[1:] if line.strip())


def canonical_digest(text: str) -> str:
    """The SHA-256 of format_source(text), from the memo when it knows the text."""
    known = _memo().get(digest(text))
    return known if known is not None else digest(format_source(text))


def is_canonical(text: str) -> bool:
    return canonical_digest(text) == digest(text)


def example_rulesets() -> list[Path]:
    return sorted(EXAMPLES.rglob("*.rules"))


def record(texts: list[str]) -> None:
    """Write the memo for `texts` (formatted for real) under the current fingerprint."""
    pairs = sorted({digest(text): digest(format_source(text)) for text in texts}.items())
    MEMO.write_text(f"fingerprint {fingerprint()}\n" + "".join(f"{a} {b}\n" for a, b in pairs),
                    encoding="ascii")


def main() -> int:
    """Record the memo of every example and of every market appetite as its guide writes it."""
    from insureops.carrier_matching.guides import write_market_appetites
    from tests.carrier_matching.example_market import read_texts

    texts = [path.read_text(encoding="utf-8") for path in example_rulesets()]
    texts += list(write_market_appetites(read_texts()).values())
    record(texts)
    print(f"recorded {len(set(texts))} texts in {MEMO.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
