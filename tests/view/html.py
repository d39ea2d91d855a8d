"""A small HTML reader for the viewer's route tests: scripts, attributes, texts, links."""

from __future__ import annotations

from html.parser import HTMLParser


class Page(HTMLParser):
    """Collects a page's script elements, every attribute, its text and its links by class."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.scripts: list[dict[str, str | None]] = []
        self.inline_scripts: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []
        self.text: list[str] = []
        self._links: list[tuple[str, str, list[str]]] = []  # (classes, href, text parts)
        self._open_link: list[str] | None = None
        self._in_script = False
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.attrs.extend(attrs)
        found = dict(attrs)
        if tag == "script":
            self.scripts.append(found)
            self._in_script = True
        if tag == "a":
            self._open_link = []
            self._links.append((found.get("class") or "", found.get("href") or "", self._open_link))

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False
        if tag == "a":
            self._open_link = None

    def handle_data(self, data: str) -> None:
        if self._in_script:
            if data.strip():
                self.inline_scripts.append(data)
            return
        self.text.append(data)
        if self._open_link is not None:
            self._open_link.append(data)

    @property
    def all_text(self) -> str:
        """The page's text nodes joined by spaces (entities decoded)."""
        return " ".join(self.text)

    def links(self, css_class: str) -> list[tuple[str, str]]:
        """``(href, text)`` of every link with this class, in page order."""
        return [
            (href, "".join(parts).strip())
            for classes, href, parts in self._links
            if css_class in classes.split()
        ]


def item_ids(html: str) -> list[str]:
    """The item ids of a run page's items table, in order."""
    return [text for _, text in Page(html).links("item-link")]
