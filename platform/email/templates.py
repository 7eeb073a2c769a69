"""E-mail templates rendered in Jinja2's sandbox: a subject, a text body and an HTML body each."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import FileSystemLoader, StrictUndefined, meta
from jinja2.sandbox import SandboxedEnvironment

# Beside this module, loaded by path: importlib.resources is unreliable under the namespace
# folders with an editable install (STYLE.md, packaging trap 1).
TEMPLATE_DIRECTORY = Path(__file__).resolve().parent / "templates"
PARTS = ("subject", "txt", "html")


@dataclass(frozen=True)
class RenderedEmail:
    """A rendered template, ready to become an `EmailMessage`."""

    template: str
    subject: str
    text: str
    html: str


class TemplateRenderer:
    """Renders `<name>.subject.j2`, `<name>.txt.j2` and `<name>.html.j2` from one directory.

    The sandbox keeps templates from reaching Python internals, so later issues can let
    workspaces edit their own templates. HTML parts are autoescaped; missing variables fail.
    """

    def __init__(self, directory: Path = TEMPLATE_DIRECTORY) -> None:
        self._directory = directory
        self._environment = SandboxedEnvironment(
            loader=FileSystemLoader(str(directory)),
            autoescape=lambda name: bool(name and name.endswith(".html.j2")),
            undefined=StrictUndefined,
            keep_trailing_newline=True,
        )

    def names(self) -> list[str]:
        """The templates that have all three parts, sorted."""
        found = {path.name.split(".", 1)[0] for path in self._directory.glob("*.j2")}
        return sorted(name for name in found if all(
            (self._directory / f"{name}.{part}.j2").is_file() for part in PARTS))

    def variables(self, name: str) -> list[str]:
        """The variables the three parts of template `name` use, sorted."""
        found: set[str] = set()
        for part in PARTS:
            source = (self._directory / f"{name}.{part}.j2").read_text()
            found |= meta.find_undeclared_variables(self._environment.parse(source))
        return sorted(found)

    def render(self, name: str, context: Mapping[str, Any]) -> RenderedEmail:
        """Render the three parts of template `name` with `context`."""
        subject, text, html = (
            self._environment.get_template(f"{name}.{part}.j2").render(context) for part in PARTS)
        return RenderedEmail(name, " ".join(subject.split()), text, html)
