"""Reading the sources as they grow: a log file followed from its end, and /dev/kmsg."""

from __future__ import annotations

import errno
import os

# One poll reads at most this much of a log: a storm of errors is bounded, the rest waits.
READ_LIMIT = 4 << 20


class Follower:
    """New complete lines of a file, from where it ended when first opened (like tail -F).

    A file replaced (logrotate) or truncated is read again from its start.
    """

    def __init__(self, path: str, *, from_start: bool = False) -> None:
        self.path = path
        self._inode: tuple[int, int] | None = None
        self._offset = 0
        self._partial = b""
        self.error: str | None = None
        if not from_start:
            self._open_at_end()

    def _open_at_end(self) -> None:
        try:
            info = os.stat(self.path)
        except OSError:
            return
        self._inode, self._offset = (info.st_dev, info.st_ino), info.st_size

    def lines(self) -> list[str]:
        try:
            info = os.stat(self.path)
        except OSError as err:
            self.error = f"cannot read {self.path}: {err.strerror}"
            return []
        self.error = None
        inode = (info.st_dev, info.st_ino)
        if inode != self._inode or info.st_size < self._offset:
            self._inode, self._offset, self._partial = inode, 0, b""
        if info.st_size == self._offset:
            return []
        with open(self.path, "rb") as handle:
            handle.seek(self._offset)
            data = handle.read(READ_LIMIT)
        self._offset += len(data)
        *complete, self._partial = (self._partial + data).split(b"\n")
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
