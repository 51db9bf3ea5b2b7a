"""Plain text: paragraphs are separated by blank lines; no title, no pages, no sections."""

from __future__ import annotations

import re

from .passages import Block, Parsed
from .webpage import text_of

_PARAGRAPH_GAP = re.compile(r"\n[ \t]*\n")


def read(data: bytes, name: str) -> Parsed:
    text = text_of(data, name).replace("\r\n", "\n").replace("\r", "\n")
    return Parsed(kind="text", blocks=[Block(text=p) for p in _PARAGRAPH_GAP.split(text) if p.strip()])
