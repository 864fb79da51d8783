"""``nginx -V``: the build must have ``--with-threads`` for ``thread_pool`` and ``aio threads``."""

from __future__ import annotations

from dataclasses import dataclass

from .findings import Finding, Level


@dataclass(frozen=True)
class NginxBuild:
    version: str | None
    configure_args: tuple[str, ...]


def parse_nginx_v(text: str) -> NginxBuild:
    """Read ``nginx -V`` output (printed on stderr)."""
    version = None
    args: tuple[str, ...] = ()
    for line in text.splitlines():
        if line.startswith("nginx version:"):
            version = line.split("/", 1)[-1].strip() if "/" in line else line.split(":", 1)[1]
        elif line.startswith("configure arguments:"):
            args = tuple(line.split(":", 1)[1].split())
    return NginxBuild(version, args)


def check_threads(build: NginxBuild | None, error: str | None = None) -> Finding:
    """nginx must be built ``--with-threads`` for ``thread_pool``/``aio threads``."""
    fix = (
        "install an nginx built with --with-threads (Debian's and nginx.org's packages are; "
        "role nginx_install asserts it)"
    )
    if build is None:
        return Finding("nginx.threads", Level.FAIL, f"cannot run nginx -V: {error}", fix=fix)
    version = build.version or "unknown version"
    if "--with-threads" in build.configure_args:
        return Finding(
            "nginx.threads",
            Level.OK,
            f"nginx {version} built --with-threads",
            data={"version": build.version},
        )
    return Finding(
        "nginx.threads",
        Level.FAIL,
        f"nginx {version} is built without --with-threads: thread_pool is unknown to it",
        fix=fix,
        data={"version": build.version},
    )
