"""PDF: the text of each page with pypdf, paragraphs where the page leaves a blank line.

pypdf's layout mode keeps the vertical gaps between paragraphs as blank lines (its plain mode runs
every line together), so paragraphs come from the page as it is laid out. A PDF must start with its
header and end with its end-of-file marker: pypdf would quietly rebuild a truncated file from what
is left, and a document cut short must be refused, not read in part.
"""

from __future__ import annotations

import io
import logging
import re

from .errors import DocumentError
from .passages import Block, Parsed

NO_TEXT = "no text layer: this PDF is an image; paste its text or run OCR first"
# A PDF's end marker sits in its last bytes, possibly followed by a line end or an editor's padding.
_TAIL = 2048
_PARAGRAPH_GAP = re.compile(r"\n[ \t]*\n")


def _damaged(name: str) -> DocumentError:
    return DocumentError(f"{name} is damaged or incomplete: it cannot be read as a PDF")


def read(data: bytes, name: str) -> Parsed:
    if b"%PDF-" not in data[:1024] or b"%%EOF" not in data[-_TAIL:]:
        raise _damaged(name)
    # Imported on first use: a command that reads no PDF should not pay for the library.
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    # pypdf logs every repair it makes to a damaged file; the one line the reader sees is ours.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            # An empty user password only restricts printing or copying; the text is readable.
            try:
                opened = reader.decrypt("")
            except Exception:  # noqa: BLE001 - any failure to open it means it is locked for us
                opened = 0
            if not opened:
                raise DocumentError(f"{name} is protected by a password: save a copy without the password "
                                    "and give that instead")
        pages = [_page_text(page) for page in reader.pages]
        title = _title(reader)
    except DocumentError:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, IndexError, OSError, RecursionError):
        raise _damaged(name) from None
    except Exception:  # noqa: BLE001 - a malformed file reaches pypdf's internals (zlib, struct, arithmetic)
        raise _damaged(name) from None
    if not pages:
        raise DocumentError(f"{name} has no pages")
    if not any(text.strip() for text in pages):
        raise DocumentError(f"{name}: {NO_TEXT}")
    blocks = [Block(text=paragraph, page=number)
              for number, text in enumerate(pages, start=1)
              for paragraph in _PARAGRAPH_GAP.split(text)]
    return Parsed(kind="PDF", title=title, blocks=blocks)


def _page_text(page: object) -> str:
    try:
        return page.extract_text(extraction_mode="layout") or ""  # type: ignore[attr-defined]
    except (ValueError, KeyError, TypeError, AttributeError, IndexError, ZeroDivisionError):
        # Layout mode gives up on some unusual font tables; the plain mode still reads the words.
        return page.extract_text() or ""  # type: ignore[attr-defined]


def _title(reader: object) -> str | None:
    try:
        meta = reader.metadata  # type: ignore[attr-defined]
        title = meta.title if meta else None
    except Exception:  # noqa: BLE001 - a broken info dictionary costs only the title
        return None
    return " ".join(str(title or "").split()) or None
