"""One product's appetite written from its spec, and a whole market's from its guides."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping

from insureops.carrier_matching.guides.cases import cases
from insureops.carrier_matching.guides.screens import SCREENS
from insureops.carrier_matching.guides.sections import (
    acceptance,
    bands,
    classes,
    consts,
    core_reasons,
    eligibility,
    header,
    limits,
    losses,
    phrase_variants,
    rule,
)
from insureops.carrier_matching.guides.spec import GUIDE_NAME, GuideError, ProductSpec, read_guide
from insureops.carrier_matching.guides.text import message, quote, string_set
from insureops.carrier_matching.guides.topics import topics
from insureops.carrier_matching.jurisdictions import STATE_CODES

MANIFEST_NAME = "carrier.toml"


def write_appetite(spec: ProductSpec) -> str:
    """The `.rules` text of one product's appetite."""
    lines = header(spec) + consts(spec) + eligibility(spec) + _screens(spec) + classes(spec)
    lines += ["# --- Size bands ---", ""] + bands(spec) if spec.bands else []
    lines += topics(spec) + losses(spec) + limits(spec)
    if spec.rules:
        lines += ["# --- Carrier-specific rules ---", "", *spec.rules.splitlines(), ""]
    lines += acceptance(spec) + core_reasons(spec)
    lines += ["# --- Tests ---", ""] + cases(spec)
    text = "\n".join(lines)
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return text.rstrip("\n") + "\n"


def _screens(spec: ProductSpec) -> list[str]:
    out: list[str] = []
    for name in spec.screens:
        screen = SCREENS.get(name)
        if screen is None:
            raise GuideError(f"{spec.carrier_id}/{spec.product_id}: unknown screen `{name}`")
        const = name.upper()
        out += [f"# {screen.title} (carrier_matching/guides/screens.py)",
                f"const {const}_CLASSES = {string_set(c for c, _ in screen.classes)}",
                f"const {const}_GROUPS = {string_set(c for c, _ in screen.groups)}", ""]
        rows = [f'    | "{c}" | {quote(n)} |' for c, n in screen.classes]
        rows += [f'    | starts_with "{c}" | {quote(n)} |' for c, n in screen.groups]
        out += [f'table {name}_screen_name "{screen.title}: class names" hit first priority 475',
                f"    | business.naics | => {name}_screen_name |", *rows, "    | - | null |",
                "end", ""]
        reason = screen.reason.replace("{what}", "{outputs." + name + "_screen_name}")
        out += rule(f"{name}_screen_class", f"{screen.title}: classes", 470,
                    f"business.naics in {const}_CLASSES\n    or any(p in {const}_GROUPS where "
                    "business.naics starts_with p)",
                    [f"decline {message(reason)}", 'tag "prohibited_operation"', "stop"])
        phrases = [v for p in screen.phrases for v in phrase_variants(p)]
        out += rule(f"{name}_screen_operations", f"{screen.title}: operations", 470,
                    "\n    or ".join(f"business.activities contains {quote(p)}" for p in phrases),
                    [f"decline {message(screen.reason.replace('{what}', 'This operation'))}",
                     'tag "prohibited_operation"', "stop"])
    return out


def write_market_appetites(texts: Mapping[str, str]) -> dict[str, str]:
    """Every guided product's appetite, by path in the market (`carrier/product.rules`), from a
    market folder's texts: each carrier folder with a `guide.toml` next to its manifest."""
    written: dict[str, str] = {}
    for path in sorted(texts):
        folder, _, name = path.rpartition("/")
        if name != GUIDE_NAME or "/" in folder or not folder:
            continue
        manifest_text = texts.get(f"{folder}/{MANIFEST_NAME}")
        if manifest_text is None:
            raise GuideError(f"{path}: no {MANIFEST_NAME} next to the guide")
        manifest = tomllib.loads(manifest_text)
        for spec in read_guide(path, texts[path], manifest, STATE_CODES):
            expected = spec.file_name
            if spec.manifest.get("appetite") != expected:
                raise GuideError(f"{folder}/{MANIFEST_NAME}: product `{spec.product_id}` must "
                                 f"name its own appetite `{expected}`")
            written[f"{folder}/{expected}"] = write_appetite(spec)
    return written
