"""Reading and writing the files a user names: regular files only, bounded, atomic."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass

from tpgen.errors import FileRefused

MIB = 1 << 20
_EMPTY = "an empty file name: name a file"

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISLNK, "a symbolic link"),
)


def file_kind(mode: int) -> str:
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def size_text(size: int) -> str:
    return f"{size // MIB} MiB" if size % MIB == 0 else f"{size:,} bytes"


def read_regular_file(path: str, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; FileRefused otherwise.

    A FIFO, a device or a socket is refused from its stat, before it is opened: opening a
    FIFO blocks and /dev/zero never ends.
    """
    if not path:
        raise FileRefused(path, _EMPTY)
    try:
        before = os.stat(path)
        if not stat.S_ISREG(before.st_mode):
            raise FileRefused(path, f"is {file_kind(before.st_mode)}, not a regular file")
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as err:
        raise FileRefused(path, err.strerror or str(err)) from None
    try:
        # Swapped between stat and open: the descriptor is what counts.
        after = os.fstat(fd)
        if not stat.S_ISREG(after.st_mode):
            raise FileRefused(path, f"is {file_kind(after.st_mode)}, not a regular file")
        chunks: list[bytes] = []
        size = 0
        # /proc files report size 0: read past the limit by one byte instead of trusting st_size.
        while size <= limit and (chunk := os.read(fd, min(limit + 1 - size, MIB))):
            chunks.append(chunk)
            size += len(chunk)
    except OSError as err:
        raise FileRefused(path, err.strerror or str(err)) from None
    finally:
        os.close(fd)
    if size > limit:
        raise FileRefused(path, f"is larger than {size_text(limit)}, the most tpgen reads")
    return b"".join(chunks)


@dataclass(frozen=True)
class NotUtf8:
    """Where the first undecodable byte of a text is."""

    byte: int
    line: int
    column: int
    offset: int

    def describe(self) -> str:
        return (
            f"not UTF-8 text: byte 0x{self.byte:02x} at line {self.line}, column {self.column} "
            f"(byte offset {self.offset})"
        )


def decode_utf8(data: bytes) -> str | NotUtf8:
    """The text, or where its first byte that is not UTF-8 sits (1-based line and column)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line_start = data.rfind(b"\n", 0, err.start) + 1
        return NotUtf8(
            byte=data[err.start],
            line=data.count(b"\n", 0, err.start) + 1,
            column=err.start - line_start + 1,
            offset=err.start,
        )


def read_text_file(path: str, limit: int) -> str:
    """A regular UTF-8 text file of at most ``limit`` bytes, without NUL; FileRefused otherwise."""
    data = read_regular_file(path, limit)
    text = decode_utf8(data)
    if isinstance(text, NotUtf8):
        raise FileRefused(path, text.describe())
    nul = data.find(b"\0")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        column = nul - (data.rfind(b"\n", 0, nul) + 1) + 1
        raise FileRefused(path, f"a NUL byte at line {line}, column {column}: not a text file")
    return text


def _same_file(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _check_target(path: str, inputs: Iterable[str]) -> os.stat_result | None:
    """The stat of the regular file ``path`` replaces, None for a new file; else FileRefused."""
    if not path:
        raise FileRefused(path, _EMPTY)
    try:
        current = os.lstat(path)
    except FileNotFoundError:
        parent = os.path.dirname(path) or "."
        if not os.path.isdir(parent):
            raise FileRefused(path, f"directory {parent} does not exist: create it first") from None
        return None
    except OSError as err:
        raise FileRefused(path, err.strerror or str(err)) from None
    if stat.S_ISLNK(current.st_mode):
        raise FileRefused(
            path,
            f"is a symbolic link (to {os.readlink(path)}): -o replaces only a regular file, "
            "name the file the link points to",
        )
    if not stat.S_ISREG(current.st_mode):
        raise FileRefused(
            path, f"is {file_kind(current.st_mode)}: -o writes only a regular file or a new path"
        )
    for source in inputs:
        with contextlib.suppress(OSError):
            if _same_file(current, os.stat(source)):
                raise FileRefused(path, f"is the input {source} itself: write the config elsewhere")
    return current


def write_output(path: str, text: str, inputs: Iterable[str] = ()) -> None:
    """Replace ``path`` atomically with ``text``, keeping an existing file's mode and owner.

    Only a regular file (or a new path in an existing directory) is written; never a link,
    device, FIFO, directory or one of ``inputs``. On any failure the target is unchanged and
    the error names it, not the temporary file.
    """
    data = text.encode("utf-8")
    inputs = tuple(inputs)
    current = _check_target(path, inputs)
    parent = os.path.dirname(path) or "."
    try:
        # A long name must not make the temporary one exceed NAME_MAX (255 bytes).
        fd, tmp = tempfile.mkstemp(
            prefix=f".{os.path.basename(path)[:100]}.", suffix=".tmp", dir=parent
        )
    except OSError as err:
        raise FileRefused(path, f"cannot write: {err.strerror or err}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if current is None:
                os.fchmod(handle.fileno(), 0o644)
            else:
                _keep_mode_and_owner(path, handle.fileno(), current)
            os.fsync(handle.fileno())
        # The target may have been swapped for a link or a device since the first look.
        _check_target(path, inputs)
        os.replace(tmp, path)
    except OSError as err:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise FileRefused(path, f"cannot write: {err.strerror or err}") from None
    except BaseException:
        # A refusal, a bug or Ctrl-C: the temporary file goes, the target stays as it was.
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_directory(parent)


def _keep_mode_and_owner(path: str, fd: int, current: os.stat_result) -> None:
    mine = os.fstat(fd)
    if (mine.st_uid, mine.st_gid) != (current.st_uid, current.st_gid):
        try:
            os.fchown(fd, current.st_uid, current.st_gid)
        except PermissionError:
            raise FileRefused(
                path,
                f"is owned by uid {current.st_uid} gid {current.st_gid} and tpgen cannot keep "
                "that owner: run as root or as the owner",
            ) from None
    # After the chown, which may clear set-id bits.
    os.fchmod(fd, stat.S_IMODE(current.st_mode))


def _fsync_directory(path: str) -> None:
    # The rename is durable only once the directory entry is on disk.
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
