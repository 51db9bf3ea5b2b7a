"""The store's errors, shared by both backends."""

from __future__ import annotations

from pathlib import Path


class NotFound(KeyError):
    pass


class StoreError(Exception):
    """The database cannot be opened or written. The message is one plain line naming the file."""


class BadLocation(StoreError):
    """A database location this program cannot use (an address of another kind than postgresql://);
    nothing is created for it."""


class StoreMissing(StoreError):
    """A read-only open of a database that does not exist yet, or holds no tables: nothing is stored."""


class StoreOutdated(StoreError):
    """A read-only open of a database written by an older version: it needs migrations that a reader
    may not apply. `pending` names them; a writable open (the CLI's `upgrade`) applies them."""

    def __init__(self, path: Path | str, pending: list[str]) -> None:
        self.path, self.pending = path, pending
        super().__init__(f"the database {path} was written by an older version of this program "
                         f"(schema changes not applied yet: {', '.join(pending)})")
