"""A folder of rules under version control: one `NAME.rules` file per ruleset, its cases in
`NAME.cases.jsonl`, and the manifest `insureops-rules.json` that ties each file to a rule of
the workspace (id) and to the versions the folder was last in step with.

The manifest keeps, per rules file, the rule's id, the version the file is based on, the
SHA-256 of the text pulled or pushed (so a local edit is told from a pull), and the same for
its cases file's case set. Written in sorted, indented JSON, so it diffs well in git.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

MANIFEST = "insureops-rules.json"
RULES_SUFFIX = ".rules"
CASES_SUFFIX = ".cases.jsonl"
CASE_SET_NAME = "default"  # the case set a cases file is kept in
FORMAT = 1


class ManifestError(Exception):
    """The manifest cannot be read or is not one this version writes."""


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class Synced:
    """Where one file stands against the workspace: the object's id, the version the file is
    based on, and the digest of the text as last pulled or pushed."""

    id: str
    version: int
    sha256: str


@dataclass
class Entry:
    rule: Synced
    cases: Synced | None = None


@dataclass
class Manifest:
    url: str | None = None
    rulesets: dict[str, Entry] = field(default_factory=dict)  # rules file name -> entry

    def to_json(self) -> str:
        rulesets = {name: {key: value for key, value in asdict(entry).items()
                           if value is not None}
                    for name, entry in sorted(self.rulesets.items())}
        return json.dumps({"format": FORMAT, "url": self.url, "rulesets": rulesets},
                          indent=2, sort_keys=True) + "\n"


def _synced(value: object) -> Synced:
    if not isinstance(value, dict):
        raise ManifestError("an entry is not an object")
    try:
        return Synced(str(value["id"]), int(value["version"]), str(value["sha256"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise ManifestError(f"an entry lacks id, version or sha256 ({exc})") from None


def read_manifest(folder: Path) -> Manifest:
    """The folder's manifest; an empty one when there is none yet."""
    path = folder / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Manifest()
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ManifestError(f"cannot read {path}: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ManifestError(f"{path} is not an insureops rules manifest (format {FORMAT})")
    entries = {}
    for name, value in (data.get("rulesets") or {}).items():
        if not isinstance(value, dict) or Path(name).name != name:
            raise ManifestError(f"{path}: bad entry {name!r}")
        cases = value.get("cases")
        entries[name] = Entry(_synced(value.get("rule")),
                              _synced(cases) if cases is not None else None)
    return Manifest(data.get("url"), entries)


def write_text(path: Path, text: str) -> None:
    """Write through a temporary file and a rename: an interrupted pull leaves no half file."""
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(text, encoding="utf-8", newline="\n")
    os.replace(temporary, path)


def write_manifest(folder: Path, manifest: Manifest) -> None:
    write_text(folder / MANIFEST, manifest.to_json())


def rules_file(name: str) -> str:
    """The file name of a ruleset (its `ruleset NAME`, which holds no path separator)."""
    if not name or "/" in name or "\\" in name or name.startswith("."):
        raise ManifestError(f"a ruleset name unfit for a file name: {name!r}")
    return name + RULES_SUFFIX


def cases_file(rules_name: str) -> str:
    return rules_name.removesuffix(RULES_SUFFIX) + CASES_SUFFIX


def cases_lines(cases: list[dict]) -> str:
    """A case set as a cases file: one JSON object per line (`insureops rules simulate`)."""
    return "".join(json.dumps(case, ensure_ascii=False, sort_keys=True) + "\n"
                   for case in cases)


def parse_cases(text: str, path: Path) -> list[dict]:
    """A cases file's cases; ValueError naming the line that is not a JSON object."""
    cases = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            case = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{number}: not JSON ({exc.msg})") from None
        if not isinstance(case, dict):
            raise ValueError(f"{path}:{number}: a case is a JSON object")
        cases.append(case)
    return cases
