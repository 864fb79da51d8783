"""Run the real ``nginx -t`` on a rendered config."""

from __future__ import annotations

import grp
import ipaddress
import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any

from tpgen.errors import NginxUnavailable
from tpgen.files import read_regular_file
from tpgen.plan.types import CacheZone, Decision, Plan, ServerPlan, TlsPolicy, Upstream
from tpgen.render import nginx_literal, render_config
from tpgen.spec.build import configured_prefix
from tpgen.spec.certs import (
    THROWAWAY_OCSP_URL,
    ThrowawayIssuer,
    throwaway_issuer,
    write_throwaway_issuer,
    write_throwaway_pair,
    write_throwaway_ticket_key,
)
from tpgen.spec.edge import HTTP2_DIRECTIVE_SINCE, version_text
from tpgen.spec.model import is_ip_host
from tpgen.spec.snippets import SNIPPET_LIMIT

NGINX_ENV = "TPGEN_NGINX"
# The offline check reserves no RAM for the keys zones: nginx -t maps every zone at its size.
CHECK_KEYS_ZONE_MB = 1


@dataclass(frozen=True)
class CheckResult:
    ok: bool
    output: str
    nginx: str


def find_nginx() -> str:
    """The nginx binary: $TPGEN_NGINX, else the first nginx on PATH or in /usr/sbin."""
    candidate = (
        os.environ.get(NGINX_ENV)
        or shutil.which("nginx")
        or ("/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None)
    )
    if not candidate:
        raise NginxUnavailable(
            "nginx is not installed: install it (apt-get install nginx-core) or point "
            f"{NGINX_ENV} at a binary, or pass --no-check"
        )
    return candidate


# nginx -V answers at once and -t parses one config; a binary (or wrapper) that hangs longer is
# not one tpgen can check with.
NGINX_V_SECONDS = 20
NGINX_T_SECONDS = 60


def _nginx_v(nginx: str) -> str:
    result = _run_nginx(nginx, ["-V"], NGINX_V_SECONDS)
    return result.stderr + result.stdout


def _run_nginx(nginx: str, arguments: list[str], seconds: int) -> subprocess.CompletedProcess[str]:
    """``nginx`` with ``arguments`` (its option first); past ``seconds`` it is NginxUnavailable."""
    try:
        return subprocess.run(
            [nginx, *arguments],
            capture_output=True,
            text=True,
            # nginx cuts a long error line at 2 KiB, in the middle of a UTF-8 character or not.
            errors="replace",
            check=False,
            timeout=seconds,
        )
    except subprocess.TimeoutExpired:
        raise _hung(nginx, arguments[0], seconds) from None


def _hung(nginx: str, option: str, seconds: int) -> NginxUnavailable:
    return NginxUnavailable(
        f"{nginx} {option} did not finish in {seconds} s: point {NGINX_ENV} at a working nginx "
        "or pass --no-check"
    )


def _unfit(plan: Plan, nginx: str, built: str) -> str | None:
    """Why ``nginx`` (its -V output ``built``) cannot check a config written for a newer one."""
    found = re.search(r"nginx/([0-9]+)\.([0-9]+)\.([0-9]+)", built)
    version = tuple(int(part) for part in found.groups()) if found else (0, 0, 0)
    needs = []
    if plan.http2_directive and version < HTTP2_DIRECTIVE_SINCE:
        needs.append("`http2 on;` (nginx ≥ 1.25.1)")
    if any(s.quic for s in plan.listens) and "--with-http_v3_module" not in built:
        needs.append("QUIC listens (--with-http_v3_module)")
    if not needs:
        return None
    shown = version_text(version) if found else "of unknown version"
    return (
        f"the config is for a newer nginx (nginx.version in the spec): it uses "
        f"{' and '.join(needs)}, which {nginx} ({shown}) does not take; point {NGINX_ENV} at "
        "such an nginx (e.g. Debian 13's, scripts/ci/nginx-image.sh) or pass --no-check"
    )


# configure's prefix when -V shows none.
DEFAULT_PREFIX = "/usr/local/nginx"


def link_modules(built: str, prefix: Path) -> None:
    """``prefix``/modules: the nginx's own prefix's modules (Debian: /usr/share/nginx/modules),
    where nginx looks for a snippet's relative load_module modules/….so, so the check loads
    what the node's nginx loads."""
    own = Path(configured_prefix(built) or DEFAULT_PREFIX) / "modules"
    if own.is_dir():
        (prefix / "modules").symlink_to(own)


def _run_test(nginx: str, conf: Path, prefix: Path) -> CheckResult:
    arguments = ["-t", "-q", "-p", str(prefix), "-e", "stderr", "-c", str(conf)]
    result = _run_nginx(nginx, arguments, NGINX_T_SECONDS)
    return CheckResult(result.returncode == 0, (result.stdout + result.stderr).strip(), nginx)


def _moved(decision: Decision[str], prefix: str) -> Decision[str]:
    return replace(decision, value=prefix.rstrip("/") + decision.value)


def _shrunk(cache: CacheZone, prefix: str) -> CacheZone:
    return replace(
        cache,
        path=prefix.rstrip("/") + cache.path,
        keys_zone_mb=replace(cache.keys_zone_mb, value=CHECK_KEYS_ZONE_MB),
    )


def _offline_origin(plan: Plan) -> Decision[tuple[Upstream, ...]] | None:
    """nginx -t resolves the names of an upstream group; the controller may not resolve the
    node's names. Their syntax is checked by the model, so the swap hides no bad address."""
    if plan.origin_servers is None:
        return None
    servers = tuple(
        u if is_ip_host(u.host) else replace(u, host="127.0.0.1") for u in plan.upstreams
    )
    return replace(plan.origin_servers, value=servers)


# nginx -t binds every listen (only "address in use" passes in a test): an address of the node
# that the checking machine lacks fails with EADDRNOTAVAIL. Linux answers all of 127.0.0.0/8,
# and nginx takes an IPv6 listen's parameters (ipv6only) on an IPv4 address.
CHECK_LOOPBACK = ipaddress.ip_network("127.255.0.0/16")


def is_local(host: str) -> bool:
    """This machine can bind `host` (an IP address, IPv6 in brackets or not); a machine
    without IPv6 binds no IPv6 address, not even ::."""
    address = ipaddress.ip_address(host.strip("[]"))
    family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.bind((str(address), 0))
    except OSError:
        return False
    return True


def _local_addresses(plan: Plan) -> dict[str, str]:
    """Each listen host this machine cannot bind, and the loopback address standing in for it:
    one each, so the config's sockets stay as distinct as the node's."""
    hosts = [
        socket_.address.rpartition(":")[0] for socket_ in (*plan.listens, *plan.redirect_listens)
    ]
    hosts.append(plan.status_listen.rpartition(":")[0])
    foreign = [host for host in dict.fromkeys(hosts) if not is_local(host)]
    return {host: str(CHECK_LOOPBACK[index + 1]) for index, host in enumerate(foreign)}


def _local_listen(address: str, standins: dict[str, str]) -> str:
    host, _, port = address.rpartition(":")
    return f"{standins[host]}:{port}" if host in standins else address


def _locally_bound(plan: Plan, standins: dict[str, str]) -> dict[str, Any]:
    """The plan's fields of its listens with `standins` for their hosts."""
    return {
        "listens": tuple(
            replace(s, address=_local_listen(s.address, standins)) for s in plan.listens
        ),
        "redirect_listens": tuple(
            replace(s, address=_local_listen(s.address, standins)) for s in plan.redirect_listens
        ),
        "status_address": replace(
            plan.status_address, value=_local_listen(plan.status_listen, standins)
        ),
    }


def _has(lookup: Callable[[str], object], name: str) -> bool:
    try:
        lookup(name)
    except KeyError:
        return False
    return True


def _local_accounts(plan: Plan) -> tuple[Decision[str], Decision[str]]:
    """The checking machine's own user and group for those of the node it lacks (nginx -t as
    root resolves both): the node's nginx -t, which the role runs, resolves the node's."""
    user, group = plan.user.value, plan.group.value
    if _has(pwd.getpwnam, user) and _has(grp.getgrnam, group):
        return plan.user, plan.group
    try:
        me, mine = pwd.getpwuid(os.geteuid()).pw_name, grp.getgrgid(os.getegid()).gr_name
    except KeyError:  # an uid without a passwd entry (a container): nothing to stand in
        return plan.user, plan.group
    return (
        replace(plan.user, value=user if _has(pwd.getpwnam, user) else me),
        # Named in the user line: nginx would otherwise take the group of the user's name.
        replace(plan.group, value=group if _has(grp.getgrnam, group) else mine, overridden=True),
    )


def _moved_server(server: ServerPlan, prefix: str) -> ServerPlan:
    if server.certificate is None or server.certificate_key is None:
        return server
    return replace(
        server,
        certificate=_moved(server.certificate, prefix),
        certificate_key=_moved(server.certificate_key, prefix),
    )


def _moved_tls(tls: TlsPolicy | None, prefix: str) -> TlsPolicy | None:
    if tls is None:
        return tls
    if tls.ticket_keys is not None:
        keys = tuple(prefix.rstrip("/") + path for path in tls.ticket_keys.value)
        tls = replace(tls, ticket_keys=replace(tls.ticket_keys, value=keys))
    if tls.trusted_certificate is not None:
        tls = replace(tls, trusted_certificate=_moved(tls.trusted_certificate, prefix))
    return tls


def _moved_paths(
    decision: Decision[tuple[str, ...]] | None, prefix: str
) -> Decision[tuple[str, ...]] | None:
    if decision is None:
        return None
    return replace(decision, value=tuple(prefix.rstrip("/") + path for path in decision.value))


def copy_snippets(
    plan: Plan, moved: Plan, locate: Callable[[str], str] = lambda path: path
) -> None:
    """The operator's include files (spec extra) where the rebased config names them, read
    from their node paths (or where ``locate`` says a copy is): nginx -t checks them with the
    config. A snippet that is not here raises FileRefused (exit 2) naming it."""
    for (_, path), (_, target) in zip(plan.extra_files, moved.extra_files, strict=True):
        data = read_regular_file(locate(path), SNIPPET_LIMIT)
        Path(target).parent.mkdir(parents=True, exist_ok=True)
        Path(target).write_bytes(data)


def write_tls_files(plan: Plan) -> None:
    """Throwaway certificates, keys and ticket keys where the rebased config names them: each
    certificate signed by a throwaway CA (written as its chain, and as the trusted certificates
    where the config names them), with an OCSP responder where its server staples, so nginx -t
    loads the stapling as it would on the node."""
    issuer = throwaway_issuer()
    for server in plan.servers:
        if server.certificate and server.certificate_key:
            write_throwaway_pair(
                Path(server.certificate.value),
                Path(server.certificate_key.value),
                server.names,
                issuer=issuer,
                ocsp_url=THROWAWAY_OCSP_URL if server.staples else None,
            )
    _write_trusted(plan, issuer)
    for path in plan.tls.ticket_keys.value if plan.tls and plan.tls.ticket_keys else ():
        write_throwaway_ticket_key(Path(path))


def _write_trusted(plan: Plan, issuer: ThrowawayIssuer) -> None:
    """The throwaway CA where the config names trusted certificates that no chain already is."""
    chains = {server.certificate.value for server in plan.servers if server.certificate}
    if plan.tls and plan.tls.trusted_certificate:
        trusted = plan.tls.trusted_certificate.value
        if trusted not in chains:  # a chain file already ends in the throwaway CA
            write_throwaway_issuer(Path(trusted), issuer)


def rebased(plan: Plan, prefix: str) -> Plan:
    """The same plan with every filesystem path under ``prefix`` and every keys zone at 1 MB,
    so that any machine with nginx can run ``nginx -t`` on it: the node's disks and RAM are
    not needed. The rendered text keeps the same lines and directives."""
    root = prefix.rstrip("/")
    disks = tuple(
        replace(
            d,
            mount=root + d.mount,
            dir=root + d.dir,
            cache=_shrunk(d.cache, prefix) if d.cache else None,
        )
        for d in plan.disks
    )
    origin = _offline_origin(plan)
    notes = _moved_notes(
        plan,
        prefix,
        origin_renamed=origin != plan.origin_servers,
        shrunk=any(d.cache for d in disks),
    )
    standins = _local_addresses(plan)
    if standins:
        notes.append(
            f"listen addresses this machine lacks ({', '.join(standins)}) bound to loopback "
            f"ones of {CHECK_LOOPBACK} for the offline check"
        )
    user, group = _local_accounts(plan)
    if (user, group) != (plan.user, plan.group):
        notes.append(
            f"user {plan.user.value} group {plan.group.value}, which this machine lacks, run "
            f"as {user.value} {group.value} for the offline check"
        )
    return replace(
        plan,
        **_locally_bound(plan, standins),
        user=user,
        group=group,
        servers=tuple(_moved_server(server, prefix) for server in plan.servers),
        tls=_moved_tls(plan.tls, prefix),
        pid_file=_moved(plan.pid_file, prefix),
        mime_types_file=_moved(plan.mime_types_file, prefix),
        error_log_file=_moved(plan.error_log_file, prefix),
        access_log_file=_moved(plan.access_log_file, prefix),
        extra_main=_moved_paths(plan.extra_main, prefix),
        extra_http=_moved_paths(plan.extra_http, prefix),
        extra_server=_moved_paths(plan.extra_server, prefix),
        extra_location=_moved_paths(plan.extra_location, prefix),
        disks=disks,
        origin_servers=origin,
        notes=tuple(notes),
    )


def _moved_notes(plan: Plan, prefix: str, *, origin_renamed: bool, shrunk: bool) -> list[str]:
    """The plan's notes and what moving it for the offline check replaced."""
    notes = [*plan.notes, f"paths moved under {prefix} for the offline check"]
    if origin_renamed:
        notes.append("upstream host names replaced by 127.0.0.1 for the offline check")
    if shrunk:
        notes.append(
            f"keys zones shrunk to {CHECK_KEYS_ZONE_MB} MB each for the offline check: "
            "nginx -t maps every zone, and the node's RAM is not the checking machine's"
        )
    if plan.servers:
        notes.append("certificates and keys replaced by throwaway ones for the offline check")
    if plan.extra_files:
        notes.append(
            "extra snippets copied under the prefix as they are: paths inside them are not moved"
        )
    return notes


def install_bundled_mime_types(plan: Plan) -> None:
    """The rebased plan's include of media types: tpgen's copy of Debian 12's map, so the check
    needs no nginx configuration on the checking machine."""
    target = Path(plan.mime_types_file.value)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(resources.files("tpgen").joinpath("data/mime.types").read_bytes())


def _prepare_dirs(plan: Plan) -> None:
    install_bundled_mime_types(plan)
    for path in (plan.pid_path, plan.error_log, plan.access_log):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    for disk in plan.serving_disks:
        Path(disk.dir).mkdir(parents=True, exist_ok=True)
    write_tls_files(plan)


def check_plan(
    plan: Plan, *, nginx: str | None = None, locate: Callable[[str], str] = lambda path: path
) -> CheckResult:
    """``nginx -t`` on the plan's config with every path moved into a throwaway prefix; the
    spec's extra snippets are copied there from their node paths (``locate``: from a copy)."""
    binary = nginx or find_nginx()
    built = _nginx_v(binary)
    unfit = _unfit(plan, binary, built)
    if unfit:
        raise NginxUnavailable(unfit)
    if "--with-threads" not in built:
        raise NginxUnavailable(
            f"{binary} was built without --with-threads: thread_pool cannot work; use Debian's "
            "nginx or build with --with-threads (role nginx_install does)"
        )
    with tempfile.TemporaryDirectory(prefix="tpgen-check-") as tmp:
        prefix = Path(tmp)
        moved = rebased(plan, str(prefix / "root"))
        _prepare_dirs(moved)
        copy_snippets(plan, moved, locate)
        link_modules(built, prefix)
        conf = prefix / "nginx.conf"
        conf.write_text(render_config(moved), encoding="utf-8")
        result = _run_test(binary, conf, prefix)
        output = _readable(result.output, conf, prefix / "root", plan)
        return CheckResult(result.ok, output, binary)


def _readable(output: str, conf: Path, root: Path, plan: Plan) -> str:
    """nginx's messages with the node's paths, and its line numbers named as lines of the
    rendered config (the rebased text has the same lines), never as lines of the spec."""
    lines = render_config(plan).splitlines()
    label = f"rendered config (from {nginx_literal(plan.source, 'comment')})"

    def line(match: re.Match[str]) -> str:
        number = int(match.group(1))
        text = lines[number - 1].strip() if 0 < number <= len(lines) else ""
        return f"{label} line {number}: {text}" if text else f"{label} line {number}"

    output = re.sub(re.escape(str(conf)) + r":(\d+)", line, output)
    return output.replace(str(conf), label).replace(str(root), "")
