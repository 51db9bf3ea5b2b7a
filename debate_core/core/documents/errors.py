"""The one error a document can raise."""

from __future__ import annotations

from ..cases import CaseError


class DocumentError(CaseError):
    """A document that cannot become passages: one plain line naming the file and what to do.

    A CaseError, so every place that already refuses a bad case (the CLI's exit 2, the New debate
    page's form message) refuses a bad document the same way, with nothing saved."""
