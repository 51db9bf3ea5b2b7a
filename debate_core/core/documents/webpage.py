"""HTML with BeautifulSoup: headings h1 to h6 make sections; scripts, styles and navigation are dropped.

Text comes from the block elements that hold it (paragraphs, list items, table cells, quotes, code),
each once: an element inside another such element is read as part of its outer one.
"""

from __future__ import annotations

import re

from ..files import FileProblem, decode_text
from .errors import DocumentError
from .passages import Block, Parsed
from .word import Sections

HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
TEXT_TAGS = ("p", "li", "pre", "blockquote", "td", "th", "dt", "dd", "figcaption", "caption", "address")
# What a page shows around its content rather than as it: menus, scripts, forms, hidden templates.
DROPPED = ("script", "style", "nav", "noscript", "template", "form", "button", "svg", "iframe", "head")


# get_text(" ") puts a space at every tag edge: "<b>signed</b>." would read "signed ."
_SPACE_BEFORE_PUNCTUATION = re.compile(r"\s+(?=[.,;:!?)\]])")


def _words(tag: object) -> str:
    return _SPACE_BEFORE_PUNCTUATION.sub("", " ".join(tag.get_text(" ").split()))  # type: ignore[attr-defined]


def text_of(data: bytes, name: str) -> str:
    try:
        return decode_text(data, name)
    except FileProblem as exc:
        raise DocumentError(str(exc)) from None


def read(data: bytes, name: str) -> Parsed:
    text = text_of(data, name)
    # Imported on first use: a command that reads no web page should not pay for the library.
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(text, "html.parser")
    title_tag = soup.find("title")
    title = " ".join(title_tag.get_text(" ").split()) if title_tag else ""
    for tag in soup.find_all(DROPPED):
        tag.decompose()
    sections = Sections()
    blocks: list[Block] = []
    wanted = (*HEADINGS, *TEXT_TAGS)
    for tag in soup.find_all(wanted):
        if tag.find_parent(wanted) is not None:
            continue  # read with its outer element
        words = _words(tag)
        if not words:
            continue
        if tag.name in HEADINGS:
            sections.heading(int(tag.name[1]), words)
            title = title or (words if tag.name == "h1" else "")
        else:
            blocks.append(sections.block(words))
    if not blocks:
        # A page whose text sits in bare <div>s: its lines, as the browser would break them.
        body = soup.body or soup
        blocks = [Block(text=line) for line in body.get_text("\n").split("\n") if line.strip()]
    return Parsed(kind="HTML", title=title or None, blocks=blocks)
