"""A web page's readable text: title, meta description and visible text, parsed with selectolax."""

from __future__ import annotations

from dataclasses import dataclass

from selectolax.lexbor import LexborHTMLParser

MAX_TITLE_CHARS = 300
MAX_DESCRIPTION_CHARS = 1_000
MAX_TEXT_CHARS = 20_000
# Not what the business says about itself: code, styling, menus, footers' legal boilerplate.
HIDDEN_TAGS = ("script", "style", "noscript", "template", "svg", "canvas", "iframe", "object",
               "nav", "footer", "form", "button", "select")
DESCRIPTION_NAMES = ("description", "og:description", "twitter:description")


@dataclass(frozen=True, slots=True)
class PageText:
    """What a page says: its title and meta description (None when absent) and visible text."""

    title: str | None
    description: str | None
    text: str

    def excerpt(self, chars: int) -> str:
        """The visible text cut at a word boundary to at most `chars` characters."""
        if len(self.text) <= chars:
            return self.text
        cut = self.text[:chars + 1].rsplit(" ", 1)[0]
        return (cut if cut else self.text[:chars]).rstrip() + "…"


def collapse(text: str) -> str:
    """Runs of white space as one space, ends trimmed."""
    return " ".join(text.split())


def _bounded(text: str | None, chars: int) -> str | None:
    text = collapse(text or "")
    return text[:chars] or None


def extract_page_text(html: str, max_chars: int = MAX_TEXT_CHARS) -> PageText:
    """Title, meta description and visible text of `html` (any HTML, however broken).

    The visible text leaves out scripts, styles, navigation, footers and forms, and is cut at
    `max_chars` characters.
    """
    tree = LexborHTMLParser(html)
    title_node = tree.css_first("title")
    title = _bounded(title_node.text() if title_node is not None else None, MAX_TITLE_CHARS)
    description = None
    metas = {(meta.attributes.get("name") or meta.attributes.get("property") or "").lower():
             meta.attributes.get("content") for meta in tree.css("meta")}
    for name in DESCRIPTION_NAMES:
        description = _bounded(metas.get(name), MAX_DESCRIPTION_CHARS)
        if description:
            break
    tree.strip_tags(list(HIDDEN_TAGS))
    root = tree.body if tree.body is not None else tree.root
    text = collapse(root.text(separator=" ")) if root is not None else ""
    return PageText(title, description, text[:max_chars])
