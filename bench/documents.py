"""What it costs to turn a long PDF into passages: a generated 300-page PDF (four paragraphs of
report text per page) read with core/documents, timed, and its peak memory measured.

    python bench/documents.py             # 300 pages, best of 3
    python bench/documents.py --quick     # 30 pages, once

Two figures: reading the PDF into passages (pypdf's layout text of every page, then the paragraph
cutting), and the whole path a case takes (the same, plus the BM25 selection of the case's 500
passages). Peak memory is Python's own allocations while reading (tracemalloc, in a run of its
own since tracing slows it), and the process's resident peak (getrusage) after everything.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fpdf import FPDF  # noqa: E402

from debate_core.core.documents import read_document, read_documents  # noqa: E402

PARAGRAPH = ("Section {page}.{n}. The water authority shall publish the quarterly figures for every reservoir "
             "in its district, stating the volume held, the inflow and the outflow in cubic metres, the share "
             "of capacity in use, and any restriction on abstraction in force at the end of the quarter. "
             "Where a figure is estimated, the publication says so and names the method used.")
QUESTION = "Which restrictions on abstraction must the water authority publish each quarter?"


def make_pdf(pages: int) -> bytes:
    pdf = FPDF()
    pdf.set_title("Reservoir Reporting Regulations")
    pdf.set_font("Helvetica", size=10)
    for page in range(1, pages + 1):
        pdf.add_page()
        for n in range(1, 5):
            pdf.multi_cell(0, 5, PARAGRAPH.format(page=page, n=n))
            pdf.ln(4)
    return bytes(pdf.output())


def best_of(repeats: int, fn) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeats):
        started = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - started)
    return best, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="30 pages, once")
    parser.add_argument("--pages", type=int, help="pages of the generated PDF (default 300)")
    args = parser.parse_args()
    pages = args.pages or (30 if args.quick else 300)
    repeats = 1 if args.quick else 3
    data = make_pdf(pages)
    rss_before_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # kilobytes on Linux
    read_s, doc = best_of(repeats, lambda: read_document("regulations.pdf", data))
    case_s, docs = best_of(repeats, lambda: read_documents([("regulations.pdf", data)], question=QUESTION))
    tracemalloc.start()
    read_document("regulations.pdf", data)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # kilobytes on Linux
    print(f"PDF: {pages} pages, {len(data) / 1e6:.2f} MB; {len(doc.passages)} passages "  # type: ignore[attr-defined]
          f"({docs.total} read, {len(docs.passages)} kept for the case)")  # type: ignore[attr-defined]
    print(f"into passages:           {read_s:.2f} s ({read_s / pages * 1000:.1f} ms a page), best of {repeats}")
    print(f"into a case (with BM25):  {case_s:.2f} s, best of {repeats}")
    print(f"peak Python memory while reading: {peak / 1e6:.1f} MB (tracemalloc)")
    print(f"peak resident memory of the process: {rss_kb / 1e3:.0f} MB (getrusage, everything included; "
          f"{rss_before_kb / 1e3:.0f} MB before the first read)")


if __name__ == "__main__":
    main()
