"""Write every product's appetite (`<carrier>/<product>.rules`) from the carrier's guide.toml.

    python examples/market/write_appetites.py [--check]

The guides are the one source: edit a guide, run this, commit both. `--check` writes nothing
and exits 1 when a written appetite differs from the file (tests/carrier_matching run the same
check). The writer is insureops.carrier_matching.guides; this script lays its text out as
`insureops rules fmt` does (the dsl's formatter) and reads and writes the files.
"""

from __future__ import annotations

import sys
from pathlib import Path

from insureops.carrier_matching.guides import write_market_appetites
from insureops.dsl.formatter import format_source

FOLDER = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    texts = {path.relative_to(FOLDER).as_posix(): path.read_text(encoding="utf-8")
             for path in sorted(FOLDER.glob("*/*.toml"))}
    written = {path: format_source(text) for path, text in write_market_appetites(texts).items()}
    stale = [path for path, text in written.items()
             if not (FOLDER / path).is_file() or (FOLDER / path).read_text(encoding="utf-8") != text]
    if "--check" in argv:
        for path in stale:
            print(f"{path}: differs from its guide", file=sys.stderr)
        return 1 if stale else 0
    for path in stale:
        (FOLDER / path).write_text(written[path], encoding="utf-8")
    kept = set(written)
    for path in sorted(FOLDER.glob("*/*.rules")):
        relative = path.relative_to(FOLDER).as_posix()
        if relative not in kept and (path.parent / "guide.toml").is_file():
            path.unlink()
            print(f"removed {relative}")
    print(f"{len(written)} appetites, {len(stale)} written")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
