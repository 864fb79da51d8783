"""The machine doctor reads: :class:`HostSystem` is the only code that touches it; tests fake it."""

from __future__ import annotations

import errno
import http.client
import os
import pwd
import stat
import subprocess
import threading
import urllib.error
import urllib.request
from collections.abc import Iterable
from datetime import datetime
from email.message import Message
from pathlib import Path
from typing import IO, Protocol

from .space import FsUsage

DEV_BLOCK = Path("/sys/dev/block")  # the kernel's block devices by MAJOR:MINOR
READ_LIMIT = 16 << 20  # the most doctor reads of a config: a rendered one is well under 1 MiB


class System(Protocol):
    """What doctor reads from the machine (tests pass a fake)."""

    def nginx_v(self, binary: str) -> str: ...
    def mountinfo(self) -> str: ...
    def statvfs(self, path: str) -> FsUsage: ...
    def write_probe(self, directory: str) -> None: ...
    def owner_of(self, path: str) -> str: ...
    def read_text(self, path: str) -> str: ...
    def read_lines(self, path: str) -> Iterable[str]: ...
    def fetch(self, url: str) -> str: ...
    def realpath(self, path: str) -> str: ...
    def read_ahead_kb(self, device: str) -> int: ...
    def now(self) -> datetime: ...


def open_regular(path: str) -> int:
    """A descriptor to read a regular file; OSError for anything else.

    Checked before opening: opening a FIFO blocks, and /dev/zero never ends.
    """
    kind = stat.S_IFMT(os.stat(path).st_mode)
    if kind == stat.S_IFREG:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
        kind = stat.S_IFMT(os.fstat(fd).st_mode)
        if kind == stat.S_IFREG:
            return fd
        os.close(fd)
    raise OSError(errno.EINVAL, "not a regular file", path)


class HostSystem:
    """The real machine."""

    def __init__(self, timeout: float = 3.0) -> None:
        self.timeout = timeout

    def nginx_v(self, binary: str) -> str:
        try:
            proc = subprocess.run(
                [binary, "-V"],
                capture_output=True,
                text=True,
                errors="replace",
                check=False,
                timeout=self.timeout,
            )
        except subprocess.TimeoutExpired:
            # The finding's one line, not subprocess's "Command '[...]' timed out".
            raise OSError(
                errno.ETIMEDOUT, f"{binary} -V did not finish in {self.timeout:g} s"
            ) from None
        if proc.returncode != 0:
            raise OSError(proc.stderr.strip() or f"exit {proc.returncode}")
        return proc.stderr + proc.stdout

    def mountinfo(self) -> str:
        return Path("/proc/self/mountinfo").read_text(encoding="utf-8")

    def statvfs(self, path: str) -> FsUsage:
        st = os.statvfs(path)
        return FsUsage(
            st.f_blocks * st.f_frsize, st.f_bavail * st.f_frsize, st.f_files, st.f_favail
        )

    def write_probe(self, directory: str) -> None:
        probe = os.path.join(directory, f".tpgen-doctor-{os.getpid()}")
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, b"\0" * 4096)
            os.fsync(fd)
        finally:
            os.close(fd)
            os.unlink(probe)

    def owner_of(self, path: str) -> str:
        uid = os.stat(path).st_uid
        try:
            return pwd.getpwuid(uid).pw_name
        except KeyError:  # a uid without a name is still an owner
            return str(uid)

    def read_text(self, path: str) -> str:
        fd = open_regular(path)
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(READ_LIMIT + 1)
        if len(data) > READ_LIMIT:
            raise OSError(errno.EFBIG, f"larger than {READ_LIMIT >> 20} MiB", path)
        return data.decode("utf-8", errors="replace")

    def read_lines(self, path: str) -> Iterable[str]:
        with os.fdopen(open_regular(path), encoding="utf-8", errors="replace") as handle:
            yield from handle

    def fetch(self, url: str) -> str:
        """The page's first 64 KiB. TimeoutError when the whole answer takes longer than the
        timeout: urllib's bounds each read only, and a peer sending a byte a second held doctor
        (and the metrics timer) for as long as it kept sending."""
        answer: list[str] = []
        failure: list[Exception] = []

        def get() -> None:
            try:
                answer.append(self._get(url))
            except Exception as err:  # handed to the caller's thread, which reports it
                failure.append(err)

        # A daemon thread: one still reading when the time is up ends with the process.
        worker = threading.Thread(target=get, name="tpgen-doctor-status", daemon=True)
        worker.start()
        worker.join(self.timeout)
        if failure:
            raise failure[0]
        if not answer:
            raise TimeoutError(errno.ETIMEDOUT, f"no whole answer in {self.timeout:g} s")
        return answer[0]

    def _get(self, url: str) -> str:
        # Straight to the node's own loopback status: an http_proxy in the environment (a play's
        # apt proxy) would send it to the proxy, which cannot reach this node's 127.0.0.1.
        direct = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect())
        with direct.open(url, timeout=self.timeout) as response:
            body: bytes = response.read(65536)
        return body.decode("utf-8", errors="replace")

    def realpath(self, path: str) -> str:
        return os.path.realpath(path)

    def read_ahead_kb(self, device: str) -> int:
        """What ``blockdev --getra`` reports, in KiB. Found by the node's device number: a node
        named in a container (docker's --device) need not carry the kernel's name."""
        info = os.stat(device)
        if not stat.S_ISBLK(info.st_mode):
            raise OSError(errno.ENOTBLK, "not a block device", device)
        number = f"{os.major(info.st_rdev)}:{os.minor(info.st_rdev)}"
        return read_ahead_of(DEV_BLOCK / number)

    def now(self) -> datetime:
        return datetime.now()


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """stub_status never redirects: an answer that does is not the node's status page, and
    following it would take doctor (root, on the node) to another host or scheme."""

    def redirect_request(  # noqa: PLR0917 - urllib's own signature
        self,
        req: urllib.request.Request,
        fp: IO[bytes],
        code: int,
        msg: str,
        headers: Message,
        newurl: str,
    ) -> urllib.request.Request | None:
        raise urllib.error.HTTPError(
            req.full_url, code, f"redirects to {_one_line(newurl)}", headers, fp
        )


def read_ahead_of(block: Path) -> int:
    """The read-ahead, in KiB, of the block device whose sysfs entry is ``block``; a partition
    reads ahead as its disk does (they share one queue)."""
    found = Path(os.path.realpath(block))
    if not (found / "dev").is_file():
        raise OSError(errno.ENODEV, "the kernel lists no such block device", str(block))
    if (found / "partition").exists():
        found = found.parent
    text = (found / "queue" / "read_ahead_kb").read_text("ascii", errors="replace").strip()
    if not (text.isascii() and text.isdigit() and len(text) <= 20):  # int() refuses "²"
        raise OSError(errno.EINVAL, f"not a size in KiB: {_one_line(text, 40)!r}", str(found))
    return int(text)


def error_text(err: BaseException, named: str | None = None) -> str:
    """The short reason of an error, as a finding shows it (no exception class names).

    ``named``: the path the finding's message names already; an OSError about that path is
    its reason alone (`cannot read X: No such file or directory`, not `...: X` again)."""
    if isinstance(err, urllib.error.URLError):
        reason = err.reason
        if isinstance(reason, OSError):
            return reason.strerror or str(reason)
        # An HTTP error's reason is the peer's own text: escaped and cut, so it stays one line.
        return _one_line(str(reason))
    if isinstance(err, OSError) and err.strerror:
        # a path the finding does not name (a file inside the directory it names) is shown
        shown = err.filename and err.filename != named
        return f"{err.strerror}: {err.filename}" if shown else err.strerror
    if isinstance(err, http.client.InvalidURL):
        return f"not a valid URL: {_one_line(str(err))}"
    if isinstance(err, http.client.HTTPException) and not isinstance(err, OSError):
        # BadStatusLine's text is the peer's own line: escaped and cut, so it stays one line.
        return f"not an HTTP answer: {_one_line(str(err)) or 'nothing'}"
    return str(err) or type(err).__name__


def _one_line(text: str, limit: int = 200) -> str:
    shown = text.encode("ascii", "backslashreplace").decode("ascii")
    shown = "".join(char if char.isprintable() else repr(char)[1:-1] for char in shown)
    return shown if len(shown) <= limit else shown[:limit] + "..."
