"""Markdown with markdown-it-py: headings make sections, the first level-1 heading is the title.

The parser's tokens give paragraphs, list items, table cells and code blocks as they are written;
inline markup (emphasis, links) is read as its words.
"""

from __future__ import annotations

from .passages import Block, Parsed
from .webpage import text_of
from .word import Sections


def _words(inline: object) -> str:
    parts = []
    for child in getattr(inline, "children", None) or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            parts.append(child.content)
    return " ".join("".join(parts).split())


def read(data: bytes, name: str) -> Parsed:
    text = text_of(data, name)
    # Imported on first use: a command that reads no Markdown should not pay for the library.
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    sections = Sections()
    blocks: list[Block] = []
    title = None
    heading_level = None
    for token in tokens:
        if token.type == "heading_open":
            heading_level = int(token.tag[1])
        elif token.type == "inline" and heading_level is not None:
            words = _words(token)
            if words:
                sections.heading(heading_level, words)
                if heading_level == 1 and title is None:
                    title = words
            heading_level = None
        elif token.type == "inline":
            words = _words(token)
            if words:
                blocks.append(sections.block(words))
        elif token.type in ("fence", "code_block") and token.content.strip():
            blocks.append(sections.block(token.content))
    return Parsed(kind="Markdown", title=title, blocks=blocks)
