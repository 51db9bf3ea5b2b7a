"""Reading and writing files at paths people give: bounded reads, safe writes, one-line errors.

Every path a user names (a case file, `--agents-file`, a cassette, `$DEBATE_PRICES`, an export or
report folder) goes through here, so a device, a FIFO, a directory given as a file, a huge file, a
NUL byte or a symbolic link planted where a file is written is refused the same way everywhere: a
`FileProblem` whose message is one line naming the path and what is wrong with it. Callers turn it
into their own bad-input error (the CLI's exit 2, the app's form message).

Reads stat the path before opening it and refuse anything but a regular file, so `/dev/zero` or a
FIFO with no writer is refused at once instead of hanging or filling memory; the open itself is
non-blocking and re-checked with fstat, for a path swapped between the two. At most limit + 1
bytes are read. Writes go to a temporary file in the target's folder that is then renamed over
the target, so a reader never sees half a file and a failed write leaves nothing behind; a target
that is a symbolic link, a directory, a FIFO or a device is refused before anything is written.
A folder that is itself a symbolic link (say, `out -> /mnt/big/out`) is written into: the files in
it are created by the rename, never followed.

The limits have defaults and an environment variable each, which every message names.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path


class FileProblem(ValueError):
    """A path that cannot be read or written as asked. The message is one line naming it."""


@dataclass(frozen=True)
class Limit:
    """A bound with a default, raised by setting an environment variable."""

    env: str
    default: int
    unit: str = "bytes"

    def value(self) -> int:
        raw = os.environ.get(self.env, "").strip()
        if not raw:
            return self.default
        try:
            value = int(raw.replace("_", "").replace(",", ""))
        except ValueError:
            value = 0
        if value < 1:
            raise FileProblem(f"{self.env} must be a whole number of at least 1, got {raw!r}")
        return value

    def describe(self, value: int | None = None) -> str:
        value = self.value() if value is None else value
        return size_text(value) if self.unit == "bytes" else f"{value:,} {self.unit}"

    def hint(self) -> str:
        return f"set {self.env} to raise it"


# A case is read whole into memory and into every prompt: 1 MB and 500 passages are far beyond
# any sample case and still small enough to refuse a wrong file before it costs anything.
CASE_BYTES = Limit("DEBATE_MAX_CASE_BYTES", 1_000_000)
PASSAGES = Limit("DEBATE_MAX_PASSAGES", 500, "passages")
# Cassettes, agents files and price tables: a recorded debate can be several MB; this only stops
# a wrong file (a disk image, a log) from being read whole.
FILE_BYTES = Limit("DEBATE_MAX_FILE_BYTES", 64_000_000)


def size_text(n: int) -> str:
    """A byte count in decimal units as people read them: 1 MB, 5.2 MB, 640 KB, 12 bytes."""
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("KB", 10**3)):
        if n >= scale:
            return f"{n / scale:.1f}".removesuffix(".0") + f" {unit}"
    return f"{n:,} bytes"


def check_size(size: int, limit: Limit, origin: str) -> None:
    """Refuse `size` bytes over the limit, naming the origin, the limit and how to raise it."""
    cap = limit.value()
    if size > cap:
        shown_size, shown_cap = size_text(size), limit.describe(cap)
        if shown_size == shown_cap:  # just over: rounded, both would read "1 MB"
            shown_size, shown_cap = f"{size:,} bytes", f"{cap:,} bytes"
        raise FileProblem(f"{origin} is {shown_size}; the limit is {shown_cap} ({limit.hint()})")


def check_count(count: int, limit: Limit, origin: str, noun: str = "passages") -> None:
    cap = limit.value()
    if count > cap:
        raise FileProblem(f"{origin} has {count:,} {noun}; the limit is {cap:,} ({limit.hint()})")


def shown(path: str | os.PathLike[str]) -> str:
    """A path as one line: as typed, or quoted with escapes when it holds control characters."""
    text = os.fspath(path)
    return text if text.isprintable() else repr(text)


def _kind(mode: int) -> str | None:
    """What a non-regular file is, in words; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _reason(exc: OSError) -> str:
    return exc.strerror.lower() if exc.strerror else str(exc)


def _no_nul(path: Path, what: str) -> None:
    if "\x00" in os.fspath(path):
        raise FileProblem(f"the {what} path {shown(path)} contains a NUL byte")


def _read_error(path: Path, what: str, exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError):
        return f"{what} not found: {shown(path)}"
    if isinstance(exc, NotADirectoryError):
        return f"{what} not found: {shown(path)} (a part of the path is not a folder)"
    if isinstance(exc, IsADirectoryError):
        return f"{what} {shown(path)} is a directory, not a file"
    return f"{what} {shown(path)} cannot be read ({_reason(exc)})"


def _refuse_kind(mode: int, path: Path, what: str) -> None:
    kind = _kind(mode)
    if kind is not None:
        raise FileProblem(f"{what} {shown(path)} is {kind}, not a regular file"
                          if kind != "a directory" else f"{what} {shown(path)} is a directory, not a file")


def read_bytes_capped(path: str | os.PathLike[str], what: str, limit: Limit = FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; FileProblem for anything else.

    `what` names the file in messages ("case file", "agents file")."""
    p = Path(path)
    _no_nul(p, what)
    cap = limit.value()
    try:
        st = os.stat(p)
    except OSError as exc:
        raise FileProblem(_read_error(p, what, exc)) from None
    # Refused before opening: opening a FIFO blocks until a writer comes, and a device never ends.
    _refuse_kind(st.st_mode, p, what)
    if st.st_size > cap:
        check_size(st.st_size, limit, f"{what} {shown(p)}")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(p, flags)
    except OSError as exc:
        raise FileProblem(_read_error(p, what, exc)) from None
    chunks: list[bytes] = []
    total = 0
    try:
        _refuse_kind(os.fstat(fd).st_mode, p, what)  # the path may have changed since the stat
        # Files like those in /proc report size 0 and still have content: read until the end, or
        # one byte past the limit.
        while total <= cap:
            chunk = os.read(fd, min(1 << 20, cap + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as exc:
        raise FileProblem(_read_error(p, what, exc)) from None
    finally:
        os.close(fd)
    if total > cap:
        raise FileProblem(f"{what} {shown(p)} is over the limit of {limit.describe(cap)} ({limit.hint()})")
    return b"".join(chunks)


def decode_text(raw: bytes, origin: str) -> str:
    """UTF-8 text (a leading byte-order mark dropped); a NUL byte or other encoding is refused."""
    nul = raw.find(b"\x00")
    if nul >= 0:
        raise FileProblem(f"{origin} contains a NUL byte (at byte {nul:,}): it is not a text file")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FileProblem(f"{origin} is not UTF-8 text ({exc.reason} at byte {exc.start:,})") from None


def read_text_capped(path: str | os.PathLike[str], what: str, limit: Limit = FILE_BYTES) -> str:
    """The UTF-8 text of a regular file of at most `limit` bytes; FileProblem for anything else."""
    raw = read_bytes_capped(path, what, limit)
    return decode_text(raw, f"{what} {shown(Path(path))}")


def json_error(exc: json.JSONDecodeError, prefix: str = "invalid JSON: ") -> str:
    """`invalid JSON: <what> at line L column C`, without the parser's own trailing "at" (which
    made "Invalid control character at at line 1")."""
    msg = exc.msg.removesuffix(" at").removesuffix(":")
    return f"{prefix}{msg} at line {exc.lineno} column {exc.colno}"


# ---------------------------------------------------------------------------
# Writes
# ---------------------------------------------------------------------------


def check_target(path: str | os.PathLike[str], what: str) -> Path:
    """Refuse, before anything is written, a target that is a symbolic link, a directory, a FIFO
    or a device, or whose folder exists and is not a folder."""
    p = Path(path)
    _no_nul(p, what)
    try:
        st = os.lstat(p)
    except FileNotFoundError:
        st = None
    except NotADirectoryError:
        raise FileProblem(f"cannot write {what} {shown(p)}: a part of the path is not a folder") from None
    except OSError as exc:
        raise FileProblem(f"cannot write {what} {shown(p)}: {_reason(exc)}") from None
    if st is not None:
        if stat.S_ISLNK(st.st_mode):
            # Writing through a link someone else placed would overwrite whatever it points to.
            raise FileProblem(f"cannot write {what} {shown(p)}: it is a symbolic link; remove it or choose "
                              "another path")
        kind = _kind(st.st_mode)
        if kind is not None:
            raise FileProblem(f"cannot write {what} {shown(p)}: it is {kind}")
    folder = p.parent
    if os.path.lexists(folder) and not folder.is_dir():
        raise FileProblem(f"cannot write {what} {shown(p)}: {shown(folder)} is not a folder")
    return p


def ensure_folder(folder: str | os.PathLike[str], what: str) -> Path:
    """The folder, created when missing; FileProblem when it is a file or cannot be created."""
    d = Path(folder)
    _no_nul(d, what)
    if d.is_dir():  # a link to a folder is used as the folder
        return d
    if os.path.lexists(d):
        try:
            kind = _kind(os.stat(d).st_mode) or "a file"
        except OSError:
            kind = "a broken symbolic link"
        raise FileProblem(f"cannot write {what} to {shown(d)}: it is {kind}, not a folder")
    try:
        d.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise FileProblem(f"cannot write {what} to {shown(d)}: a part of the path is not a folder") from None
    except OSError as exc:
        raise FileProblem(f"cannot write {what} to {shown(d)}: the folder cannot be created ({_reason(exc)})") from None
    return d


def _umask() -> int:
    """The process umask, read without changing it (os.umask would, for every thread at once)."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    return 0o022


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes, what: str = "the file") -> Path:
    """Write `data` to `path` through a temporary file in the same folder and a rename.

    Refuses a target that is a symbolic link, a directory or not a regular file; creates the
    folder when missing. On any failure the temporary file is removed and the target is as before."""
    p = check_target(path, what)
    ensure_folder(p.parent, what)
    try:
        mode = stat.S_IMODE(os.stat(p).st_mode)  # an existing file keeps its permissions
    except OSError:
        mode = 0o666 & ~_umask()
    try:
        # mkstemp creates the file with O_EXCL under a fresh random name: nothing is followed.
        fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{p.name[:100]}.", suffix=".tmp")
    except OSError as exc:
        raise FileProblem(f"cannot write {what} {shown(p)}: {_reason(exc)}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, p)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise FileProblem(f"cannot write {what} {shown(p)}: {_reason(exc)}") from None
        raise
    return p


def write_text_atomic(path: str | os.PathLike[str], text: str, what: str = "the file") -> Path:
    """`write_bytes_atomic` of UTF-8 text."""
    return write_bytes_atomic(path, text.encode("utf-8"), what)
