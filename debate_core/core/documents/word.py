"""Word (.docx) with python-docx: paragraphs and table rows in order; heading styles make sections.

The zip's declared unpacked sizes are checked (bounds.check_unpacked_size) before python-docx opens
it. A heading ("Heading 1" to "Heading 9", or "Title") starts a section; its path is the headings
above it, "Part 2 > Wills".
"""

from __future__ import annotations

import io
import re
import zipfile

from .bounds import check_unpacked_size
from .errors import DocumentError
from .passages import Block, Parsed

_HEADING = re.compile(r"^heading\s*(\d)$", re.IGNORECASE)


def heading_level(style_name: str) -> int | None:
    """The level of a heading style, None for body text; the document's "Title" counts as level 1."""
    name = (style_name or "").strip()
    if name.lower() == "title":
        return 1
    match = _HEADING.match(name)
    return int(match.group(1)) if match else None


class Sections:
    """The heading path as headings come, and an ordinal per section (0 before the first heading)."""

    def __init__(self) -> None:
        self.path: list[str] = []
        self.levels: list[int] = []
        self.ordinal = 0

    def heading(self, level: int, text: str) -> None:
        while self.levels and self.levels[-1] >= level:
            self.levels.pop()
            self.path.pop()
        self.levels.append(level)
        self.path.append(text)
        self.ordinal += 1

    def block(self, text: str) -> Block:
        # Text before the first heading belongs to no section: its ids read `name-1`, like plain text.
        return Block(text=text, section=self.ordinal or None, path=" > ".join(self.path))


def read(data: bytes, name: str) -> Parsed:
    check_unpacked_size(data, name)
    # Imported on first use: a command that reads no Word file should not pay for the library.
    import docx
    from docx.opc.exceptions import PackageNotFoundError
    from docx.table import Table

    try:
        document = docx.Document(io.BytesIO(data))
        sections = Sections()
        blocks: list[Block] = []
        for item in document.iter_inner_content():
            if isinstance(item, Table):
                for row in item.rows:
                    cells = [" ".join(c.text.split()) for c in row.cells]
                    # A merged cell repeats in every row position it spans; said once.
                    text = " | ".join(c for i, c in enumerate(cells) if c and c not in cells[:i])
                    if text:
                        blocks.append(sections.block(text))
                continue
            text = " ".join(item.text.split())
            if not text:
                continue
            level = heading_level(item.style.name if item.style is not None else "")
            if level is not None:
                sections.heading(level, text)
            else:
                blocks.append(sections.block(text))
        title = " ".join((document.core_properties.title or "").split()) or None
    except DocumentError:
        raise
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError, TypeError, AttributeError,
            OSError, EOFError):
        raise DocumentError(f"{name} is damaged or incomplete: it cannot be read as a Word document") from None
    except Exception:  # noqa: BLE001 - a damaged part fails inside lxml or zlib with their own errors
        raise DocumentError(f"{name} is damaged or incomplete: it cannot be read as a Word document") from None
    return Parsed(kind="Word", title=title, blocks=blocks)
