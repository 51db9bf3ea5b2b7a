"""Documents made by the tests, with known text on known pages or under known headings."""

from __future__ import annotations

import io
import zipfile

from fpdf import FPDF


def pdf(pages: list[list[str]], title: str | None = None) -> bytes:
    """A PDF whose page N holds the paragraphs pages[N-1], each followed by a gap."""
    doc = FPDF()
    if title:
        doc.set_title(title)
    doc.set_font("Helvetica", size=11)
    for paragraphs in pages:
        doc.add_page()
        for text in paragraphs:
            doc.multi_cell(0, 6, text)
            doc.ln(5)
    return bytes(doc.output())


def image_only_pdf() -> bytes:
    """A scanned page: a picture and no text layer."""
    doc = FPDF()
    doc.add_page()
    doc.set_fill_color(30, 30, 30)
    doc.rect(20, 20, 120, 60, style="F")  # the "scan": marks on the page, no text
    return bytes(doc.output())


def encrypted_pdf(data: bytes, password: str = "secret") -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for page in PdfReader(io.BytesIO(data)).pages:
        writer.add_page(page)
    writer.encrypt(password)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def docx(items: list[tuple[str, str]], title: str | None = None) -> bytes:
    """A Word document of (style, text) paragraphs: style "H1".."H3" for headings, "" for body text."""
    import docx as python_docx

    doc = python_docx.Document()
    if title:
        doc.core_properties.title = title
    for style, text in items:
        if style.startswith("H"):
            doc.add_heading(text, level=int(style[1:]))
        else:
            doc.add_paragraph(text)
    out = io.BytesIO()
    doc.save(out)
    return out.getvalue()


def zip_bomb_docx(unpacked: int) -> bytes:
    """A small .docx-named zip whose one entry unpacks to `unpacked` zero bytes."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        with archive.open("word/document.xml", "w", force_zip64=True) as entry:
            chunk = b"\0" * 1_000_000
            for _ in range(unpacked // len(chunk)):
                entry.write(chunk)
    return out.getvalue()
