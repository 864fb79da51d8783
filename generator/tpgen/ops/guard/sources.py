"""Reading the sources as they grow: a log file followed from its end, and /dev/kmsg."""

from __future__ import annotations

import errno
import os
from typing import BinaryIO

from tpgen.errors import FileRefused
from tpgen.files import open_regular

# One poll reads at most this much of a log: a storm of errors is bounded, the rest waits.
READ_LIMIT = 4 << 20


# A "line" longer than this with no newline is not nginx's: it is dropped, not held forever.
MAX_LINE = 64 << 10


class Follower:
    """New complete lines of a file, from where it ended when first opened (like tail -F).

    The file stays open between polls, so when it is replaced (logrotate) the lines written to
    the old one before nginx reopened its log are read to the end first; then the new file from
    its start. A truncated file (copytruncate) is read again from its start.
    """

    def __init__(self, path: str, *, from_start: bool = False) -> None:
        self.path = path
        self._handle: BinaryIO | None = None
        self._partial = b""
        self.error: str | None = None
        self.dropped = 0  # over-long partial lines dropped
        if not from_start:
            self._open(at_end=True)

    def _open(self, *, at_end: bool) -> bool:
        try:
            # Not a plain open(): a FIFO would block it; a device or a socket is no log.
            fd = open_regular(self.path)
        except FileRefused as err:
            self.error = f"cannot read {self.path}: {err.message}"
            return False
        handle = os.fdopen(fd, "rb")  # kept open across polls, closed in _close
        if at_end:
            handle.seek(0, os.SEEK_END)
        self._close()
        self._handle, self._partial = handle, b""
        return True

    def _close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def lines(self) -> list[str]:
        try:
            info = os.stat(self.path)
        except OSError as err:
            self.error = f"cannot read {self.path}: {err.strerror}"
            return self._read()  # moved away and not yet recreated: the old file's last lines
        self.error = None
        if self._handle is None:
            return self._read() if self._open(at_end=False) else []
        current = os.fstat(self._handle.fileno())
        if (current.st_dev, current.st_ino) != (info.st_dev, info.st_ino):
            rest = self._read()
            return rest + (self._read() if self._open(at_end=False) else [])
        if info.st_size < self._handle.tell():
            self._handle.seek(0)
            self._partial = b""
        return self._read()

    def _read(self) -> list[str]:
        if self._handle is None:
            return []
        try:
            data = self._handle.read(READ_LIMIT)
        except OSError as err:
            self.error = f"cannot read {self.path}: {err.strerror}"
            return []
        *complete, self._partial = (self._partial + data).split(b"\n")
        if len(self._partial) > MAX_LINE:
            self._partial = b""
            self.dropped += 1
        return [line.decode("utf-8", "replace") for line in complete]


class KernelLog:
    """New records of /dev/kmsg (one per read), from the newest when opened.

    Unreadable (a container, no CAP_SYSLOG with dmesg_restrict): ``error`` says so and guard
    works from nginx's log and the mounts alone.
    """

    def __init__(self, path: str = "/dev/kmsg") -> None:
        self.path = path
        self.error: str | None = None
        self._fd: int | None = None
        try:
            self._fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
            os.lseek(self._fd, 0, os.SEEK_END)
        except OSError as err:
            self.error = f"cannot read the kernel log {path}: {err.strerror}"
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    def lines(self) -> list[str]:
        if self._fd is None:
            return []
        out: list[str] = []
        while len(out) < 10_000:
            try:
                record = os.read(self._fd, 8192)
            except OSError as err:
                if err.errno == errno.EPIPE:  # overwritten before we read it: skip ahead
                    continue
                break  # EAGAIN: nothing more now
            if not record:
                break
            out.append(record.decode("utf-8", "replace"))
        return out
