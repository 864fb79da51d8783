"""nginx's reading of a server's address (ngx_parse_url, src/core/ngx_inet.c) where it takes no
URI part and no port range — a resolver's, a syslog server's, an upstream server's — or a URI
part after it (an OCSP responder's), and the pieces a listen's reading
(spec/handlers_listen.py) shares: a unix socket's path, and whether a host name can be one
getaddrinfo finds (whether it resolves on the node only the node knows).
"""

from __future__ import annotations

import re

from tpgen.spec.directive_values import number
from tpgen.spec.nginx_addresses import inet6_addr, inet_addr

SUN_PATH = 108  # sizeof(sockaddr_un.sun_path) on Linux, its closing NUL included
_LABEL = re.compile(r"[A-Za-z0-9_-]{1,63}")
_NUMERIC_LABEL = re.compile(r"0x[0-9a-f]*|[0-9]+", re.IGNORECASE)


def inet_aton(text: str) -> bool:
    """glibc's inet_aton (getaddrinfo reads a numeric name so): 1 to 4 parts, each decimal,
    0octal or 0xhex, the last filling the bits the others leave."""
    parts = text.split(".")
    values = []
    for part in parts:
        base = 16 if part[:2].lower() == "0x" else 8 if part.startswith("0") else 10
        digits = part[2:] if base == 16 else part
        try:
            values.append(int(digits, base) if digits else 0)
        except ValueError:
            return False
    if not 1 <= len(values) <= 4 or any(value > 255 for value in values[:-1]):
        return False
    return values[-1] < 1 << (8 * (5 - len(values)))


def host_name_problem(host: str) -> bool:
    """Whether ``host`` (no IPv4 address to ngx_inet_addr) can be no name getaddrinfo finds."""
    name = host.removesuffix(".")
    labels = name.split(".")
    if len(name) > 253 or not all(_LABEL.fullmatch(label) for label in labels):
        return True
    # No top-level name is numeric (RFC 3696): such a name is an address or none.
    return bool(_NUMERIC_LABEL.fullmatch(labels[-1])) and not inet_aton(name)


def unix_path_problem(path: str) -> str | None:
    if not path:
        return "no path in the unix domain socket"
    if len(path.encode()) + 1 > SUN_PATH:
        return "too long path in the unix domain socket"
    return None


def _port(text: str) -> str | None:
    port = number(text)
    return None if port is not None and 1 <= port <= 65535 else "invalid port"


def _inet6_url(url: str) -> str | None:
    host, bracket, after = url[1:].partition("]")
    if not bracket or "/" in after or (after and not after.startswith(":")):
        return "invalid host"
    if after and _port(after[1:]):
        return "invalid port"
    if not host:
        return "no host"
    return None if inet6_addr(host) else "invalid IPv6 address"


def url_problem(url: str) -> str | None:
    """What ngx_parse_url says (its u->err) of a server's address without a URI part (a
    resolver's, a syslog server's), or None; a host name is taken if it can be one, and
    "host not found" said of one that cannot."""
    if url[:5].lower() == "unix:":
        return unix_path_problem(url[5:])
    if url.startswith("["):
        return _inet6_url(url)
    return _inet_url(url)


def _inet_url(url: str) -> str | None:
    if "/" in url or "?" in url:
        return "invalid host"
    host, colon, port = url.partition(":")
    if colon and _port(port):
        return "invalid port"
    if not host:
        return "no host"
    # 255.255.255.255 is INADDR_NONE to ngx_inet_addr: getaddrinfo reads it.
    named = inet_addr(host) is None and host != "255.255.255.255"
    return "host not found" if named and host_name_problem(host) else None


def url_before_uri_problem(url: str) -> str | None:
    """url_problem of the address before a URI part nginx takes after it (u->uri_part): a
    unix: path's ends at a colon, an [IPv6] address's at the first / after its ], another's at
    the first / or ?."""
    if url[:5].lower() == "unix:":
        return unix_path_problem(url[5:].partition(":")[0])
    if url.startswith("["):
        bracket = url.find("]")
        slash = url.find("/", bracket + 1) if bracket >= 0 else -1
        return _inet6_url(url[:slash] if slash >= 0 else url)
    ends = [at for at in (url.find("/"), url.find("?")) if at >= 0]
    return _inet_url(url[: min(ends)] if ends else url)
