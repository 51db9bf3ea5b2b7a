"""Write the sample document (the first ten amendments to the US Constitution, public domain) as a
four-page PDF, and the sample case built from it with the same reader the app and `case new` use.

    python scripts/make_sample_document.py

writes data/documents/bill_of_rights.pdf and data/cases/documents_bill_of_rights.json. The text is
the Bill of Rights as ratified in 1791; each page holds a few amendments, so the passages cite
pages 1 to 4.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fpdf import FPDF  # noqa: E402

from debate_core.core.documents import read_documents  # noqa: E402

PDF_PATH = ROOT / "data" / "documents" / "bill_of_rights.pdf"
CASE_PATH = ROOT / "data" / "cases" / "documents_bill_of_rights.json"
TITLE = "The Bill of Rights (Amendments I-X to the Constitution of the United States)"

PAGES = [
    [
        ("Amendment I", "Congress shall make no law respecting an establishment of religion, or prohibiting the "
         "free exercise thereof; or abridging the freedom of speech, or of the press; or the right of the people "
         "peaceably to assemble, and to petition the Government for a redress of grievances."),
        ("Amendment II", "A well regulated Militia, being necessary to the security of a free State, the right "
         "of the people to keep and bear Arms, shall not be infringed."),
        ("Amendment III", "No Soldier shall, in time of peace be quartered in any house, without the consent of "
         "the Owner, nor in time of war, but in a manner to be prescribed by law."),
    ],
    [
        ("Amendment IV", "The right of the people to be secure in their persons, houses, papers, and effects, "
         "against unreasonable searches and seizures, shall not be violated, and no Warrants shall issue, but "
         "upon probable cause, supported by Oath or affirmation, and particularly describing the place to be "
         "searched, and the persons or things to be seized."),
        ("Amendment V", "No person shall be held to answer for a capital, or otherwise infamous crime, unless on "
         "a presentment or indictment of a Grand Jury, except in cases arising in the land or naval forces, or "
         "in the Militia, when in actual service in time of War or public danger; nor shall any person be "
         "subject for the same offence to be twice put in jeopardy of life or limb; nor shall be compelled in "
         "any criminal case to be a witness against himself, nor be deprived of life, liberty, or property, "
         "without due process of law; nor shall private property be taken for public use, without just "
         "compensation."),
    ],
    [
        ("Amendment VI", "In all criminal prosecutions, the accused shall enjoy the right to a speedy and public "
         "trial, by an impartial jury of the State and district wherein the crime shall have been committed, "
         "which district shall have been previously ascertained by law, and to be informed of the nature and "
         "cause of the accusation; to be confronted with the witnesses against him; to have compulsory process "
         "for obtaining witnesses in his favor, and to have the Assistance of Counsel for his defence."),
        ("Amendment VII", "In Suits at common law, where the value in controversy shall exceed twenty dollars, "
         "the right of trial by jury shall be preserved, and no fact tried by a jury, shall be otherwise "
         "re-examined in any Court of the United States, than according to the rules of the common law."),
    ],
    [
        ("Amendment VIII", "Excessive bail shall not be required, nor excessive fines imposed, nor cruel and "
         "unusual punishments inflicted."),
        ("Amendment IX", "The enumeration in the Constitution, of certain rights, shall not be construed to deny "
         "or disparage others retained by the people."),
        ("Amendment X", "The powers not delegated to the United States by the Constitution, nor prohibited by it "
         "to the States, are reserved to the States respectively, or to the people."),
    ],
]

QUESTION = ("In peacetime, a town's garrison commander orders two soldiers to be lodged in a family's house "
            "without asking the owners. Under the Bill of Rights, may soldiers be quartered in a private house "
            "in time of peace without the owner's consent?")
EXPECTED = {
    "needs_human_review": False,
    "label": "no",
    "must_mention": [["consent"]],
    "reference": "No. The Third Amendment forbids quartering a soldier in any house in time of peace without "
                 "the consent of the owner (page 1 of the document).",
}


def pdf_bytes() -> bytes:
    pdf = FPDF(format="Letter")
    pdf.set_title(TITLE)
    pdf.set_creation_date(datetime(2026, 1, 1, tzinfo=UTC))  # the same bytes on every run
    for number, articles in enumerate(PAGES, start=1):
        pdf.add_page()
        if number == 1:
            pdf.set_font("Helvetica", "B", 14)
            pdf.multi_cell(0, 8, TITLE)
            pdf.ln(6)
        for heading, text in articles:
            pdf.set_font("Helvetica", "B", 12)
            pdf.multi_cell(0, 7, heading)
            pdf.ln(3)
            pdf.set_font("Helvetica", "", 11)
            pdf.multi_cell(0, 6, text)
            pdf.ln(6)
    return bytes(pdf.output())


def main() -> None:
    data = pdf_bytes()
    PDF_PATH.parent.mkdir(parents=True, exist_ok=True)
    PDF_PATH.write_bytes(data)
    documents = read_documents([(PDF_PATH.name, data)], question=QUESTION)
    case = documents.case(title="Soldiers quartered in a private house in peacetime (from a PDF)")
    out = {"id": CASE_PATH.stem, **case.model_dump(mode="json", exclude_defaults=True, exclude={"id"}),
           "protocol": "cross_critique", "expected": EXPECTED}
    CASE_PATH.write_text(json.dumps(out, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {PDF_PATH.relative_to(ROOT)} ({len(data):,} bytes) and {CASE_PATH.relative_to(ROOT)} "
          f"({len(case.evidence)} passages)")


if __name__ == "__main__":
    main()
