"""Blocks of text (paragraphs, with their page or section) cut into passages with stable ids.

A passage is a paragraph or a short run of them: paragraphs under MIN_CHARS (a heading line, a
one-line clause) join the next one on the same page or in the same section, and a paragraph over
MAX_CHARS is cut at sentence ends, so every passage reads on its own and none fills a prompt. The
id names where the passage is: `statute-p3-2` is the second passage of page 3 of statute.pdf,
`runbook-s2-1` the first of the runbook's second section; the same file always gives the same ids.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

# About two short paragraphs, some 200 to 300 tokens: long enough to carry a rule with its
# exceptions, short enough that a claim citing it points at something a reviewer reads at a glance.
MAX_CHARS = 1200
# A heading or a page number alone says little; joined to what follows it keeps its context. Kept
# low, so a one-sentence article of a statute stays a passage of its own.
MIN_CHARS = 80
SLUG_CHARS = 40

_SENTENCE_END = re.compile(r"(?<=[.!?;:])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9§])")
_HYPHEN_BREAK = re.compile(r"(?<=[a-z])-\n(?=[a-z])")


@dataclass
class Block:
    """One paragraph as a reader found it, with where it is: a page (PDF), or a section's ordinal
    and heading path (Word, HTML, Markdown); plain text has neither."""

    text: str
    page: int | None = None
    section: int | None = None
    path: str = ""


@dataclass
class Parsed:
    """What a format reader returns: the document's own title, if it names one, and its blocks."""

    kind: str
    title: str | None = None
    blocks: list[Block] = field(default_factory=list)


def clean(text: str) -> str:
    """Text with words broken across lines joined again and every run of whitespace one space."""
    return " ".join(_HYPHEN_BREAK.sub("", text or "").split())


def slug(name: str) -> str:
    """A file stem as an id prefix: lowercase letters, digits and dashes."""
    text = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return text[:SLUG_CHARS].rstrip("-") or "document"


def _pieces(text: str) -> list[str]:
    """`text` cut at sentence ends into pieces of at most MAX_CHARS; a sentence longer than that is
    cut between words."""
    if len(text) <= MAX_CHARS:
        return [text]
    sentences: list[str] = []
    for sentence in _SENTENCE_END.split(text):
        while len(sentence) > MAX_CHARS:
            cut = sentence.rfind(" ", 0, MAX_CHARS)
            cut = cut if cut > MAX_CHARS // 2 else MAX_CHARS
            sentences.append(sentence[:cut].strip())
            sentence = sentence[cut:].strip()
        if sentence:
            sentences.append(sentence)
    out: list[str] = []
    for sentence in sentences:
        if out and len(out[-1]) + 1 + len(sentence) <= MAX_CHARS:
            out[-1] = f"{out[-1]} {sentence}"
        else:
            out.append(sentence)
    return out


def _merged(texts: list[str]) -> list[str]:
    """Short paragraphs joined to the one after them (or, for the last, the one before), within MAX_CHARS."""
    out: list[str] = []
    carry = ""
    for text in texts:
        joined = f"{carry} {text}".strip() if carry else text
        if carry and len(joined) > MAX_CHARS:
            out.append(carry)
            joined = text
        carry = ""
        if len(text) < MIN_CHARS:  # a heading, or several: they go with the paragraph they introduce
            carry = joined
        else:
            out.append(joined)
    if carry:
        if out and len(out[-1]) + 1 + len(carry) <= MAX_CHARS:
            out[-1] = f"{out[-1]} {carry}"
        else:
            out.append(carry)
    return out


def _where(block: Block) -> tuple[int | None, int | None]:
    return block.page, block.section


def to_passages(parsed: Parsed, *, prefix: str, source: str, document: str) -> list[dict[str, Any]]:
    """The passages of one document, in its order: id, source, text, and page or section, and the file name."""
    groups: list[tuple[Block, list[str]]] = []
    for block in parsed.blocks:
        text = clean(block.text)
        if not text:
            continue
        if groups and _where(groups[-1][0]) == _where(block):
            groups[-1][1].extend(_pieces(text))
        else:
            groups.append((block, _pieces(text)))
    passages: list[dict[str, Any]] = []
    for block, texts in groups:
        if block.page is not None:
            stem = f"{prefix}-p{block.page}"
        elif block.section is not None:
            stem = f"{prefix}-s{block.section}"
        else:
            stem = prefix
        for index, text in enumerate(_merged(texts), start=1):
            # Pages and section ordinals only grow through a document, so each stem is met once.
            passage: dict[str, Any] = {"id": f"{stem}-{index}", "source": source, "text": text}
            if block.page is not None:
                passage["page"] = block.page
            if block.path:
                passage["section"] = block.path
            passage["document"] = document
            passages.append(passage)
    return passages
