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
# '-' means stdin to many tools; here it is a file's name, and a missing one said only "No such
# file or directory".
_DASH = "tpgen reads no stdin: save the input to a file and name that file (./- for one named -)"

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


def _refuse_irregular(path: str, info: os.stat_result) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise FileRefused(path, f"is {file_kind(info.st_mode)}, not a regular file")


def open_regular(path: str) -> int:
    """A descriptor to read the regular file ``path``; FileRefused for anything else.

    A FIFO, a device or a socket is refused from its stat, before it is opened: opening a
    FIFO blocks and /dev/zero never ends. The open does not block either, should one be
    swapped in meanwhile.
    """
    if not path:
        raise FileRefused(path, _EMPTY)
    try:
        _refuse_irregular(path, os.stat(path))
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as err:
        stdin = path == "-" and isinstance(err, FileNotFoundError)
        raise FileRefused(path, _DASH if stdin else err.strerror or str(err)) from None
    try:
        # Swapped between stat and open: the descriptor is what counts.
        _refuse_irregular(path, os.fstat(fd))
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_head(path: str, size: int) -> bytes:
    """At most the first ``size`` bytes of the regular file ``path``; FileRefused otherwise."""
    fd = open_regular(path)
    chunks: list[bytes] = []
    done = 0
    try:
        # /proc files report size 0: read until the end instead of trusting st_size.
        while done < size and (chunk := os.read(fd, min(size - done, MIB))):
            chunks.append(chunk)
            done += len(chunk)
    except OSError as err:
        raise FileRefused(path, err.strerror or str(err)) from None
    finally:
        os.close(fd)
    return b"".join(chunks)


def read_regular_file(path: str, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; FileRefused otherwise."""
    # One byte past the limit tells a file of exactly ``limit`` bytes from a longer one.
    data = read_head(path, limit + 1)
    if len(data) > limit:
        raise FileRefused(path, f"is larger than {size_text(limit)}, the most tpgen reads")
    return data


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


@dataclass(frozen=True)
class Target:
    """How a refusal names a file tpgen writes: the option that chose it, what it holds."""

    option: str = "-o"
    holds: str = "the config"


OUTPUT = Target()


def _refuse_kind(path: str, current: os.stat_result, target: Target) -> None:
    if stat.S_ISLNK(current.st_mode):
        raise FileRefused(
            path,
            f"is a symbolic link (to {os.readlink(path)}): {target.option} replaces only a "
            "regular file, name the file the link points to",
        )
    if not stat.S_ISREG(current.st_mode):
        raise FileRefused(
            path,
            f"is {file_kind(current.st_mode)}: {target.option} writes only a regular file or a "
            "new path",
        )


def _refuse_inputs(
    path: str, current: os.stat_result, inputs: Iterable[str], target: Target
) -> None:
    for source in inputs:
        with contextlib.suppress(OSError):
            if _same_file(current, os.stat(source)):
                raise FileRefused(
                    path, f"is the input {source} itself: write {target.holds} elsewhere"
                )


def existing_target(
    path: str, inputs: Iterable[str] = (), target: Target = OUTPUT
) -> os.stat_result | None:
    """The stat of the regular file at ``path`` tpgen may replace or append to, None when there
    is none; FileRefused for a link, anything not a regular file, or one of ``inputs``."""
    if not path:
        raise FileRefused(path, _EMPTY)
    try:
        current = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as err:
        raise FileRefused(path, err.strerror or str(err)) from None
    _refuse_kind(path, current, target)
    _refuse_inputs(path, current, inputs, target)
    return current


def check_target(
    path: str, inputs: Iterable[str] = (), target: Target = OUTPUT
) -> os.stat_result | None:
    """The stat of the regular file ``path`` replaces, None for a new file; else FileRefused."""
    current = existing_target(path, inputs, target)
    if current is None:
        parent = os.path.dirname(path) or "."
        if not os.path.isdir(parent):
            raise FileRefused(path, f"directory {parent} does not exist: create it first")
    return current


def write_output(
    path: str,
    text: str,
    inputs: Iterable[str] = (),
    *,
    target: Target = OUTPUT,
    like: str | None = None,
) -> None:
    """Replace ``path`` atomically with ``text``, keeping an existing file's mode and owner
    (those of ``like`` instead, when it exists: a candidate that becomes the live file).

    Only a regular file (or a new path in an existing directory) is written; never a link,
    device, FIFO, directory or one of ``inputs``. On any failure the target is unchanged and
    the error names it, not the temporary file.
    """
    # surrogateescape: a file read back as it was (guard's live config) is written as it was.
    data = text.encode("utf-8", errors="surrogateescape")
    inputs = tuple(inputs)
    current = check_target(path, inputs, target)
    model = _mode_model(like) if like is not None else current
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
            if model is None:
                os.fchmod(handle.fileno(), 0o644)
            else:
                _keep_mode_and_owner(path, handle.fileno(), model)
            os.fsync(handle.fileno())
        # The target may have been swapped for a link or a device since the first look.
        check_target(path, inputs, target)
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


def _mode_model(like: str) -> os.stat_result | None:
    try:
        return os.stat(like)
    except FileNotFoundError:
        return None
    except OSError as err:
        raise FileRefused(like, err.strerror or str(err)) from None


# O_NONBLOCK: a FIFO swapped in after the look fails the open (ENXIO) or is refused by fstat.
_APPEND = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY


def append_output(
    path: str, data: bytes, inputs: Iterable[str] = (), *, target: Target = OUTPUT
) -> None:
    """Append ``data`` to ``path`` with one write (a reader never sees half of it), creating it
    0644 when new; the same files as :func:`write_output`, never a link, device or input."""
    inputs = tuple(inputs)
    check_target(path, inputs, target)
    try:
        fd = os.open(path, _APPEND | os.O_CLOEXEC, 0o644)
    except OSError as err:
        raise FileRefused(path, f"cannot write: {err.strerror or err}") from None
    try:
        # Swapped between the look and the open: the descriptor is what counts.
        opened = os.fstat(fd)
        _refuse_kind(path, opened, target)
        _refuse_inputs(path, opened, inputs, target)
        os.write(fd, data)
    except OSError as err:
        raise FileRefused(path, f"cannot write: {err.strerror or err}") from None
    finally:
        os.close(fd)


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
