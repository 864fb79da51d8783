"""The node layout: what the node must look like for the plan's config to work, as one contract.

The Ansible plugins and roles, the health check and doctor read this and derive nothing: which
directory each disk gives nginx, who owns it, where nginx listens and logs. Pure: no I/O.
"""

from __future__ import annotations

import hashlib
import ipaddress
import posixpath
from dataclasses import asdict, dataclass
from typing import Any

from tpgen.plan import DiskPlan, Plan
from tpgen.plan.defaults import TLS_CERT_MODE, TLS_KEY_MODE
from tpgen.plan.types import Sysctl

# nginx needs rwx on its cache and data directories; nobody else needs anything.
DIR_MODE = "0700"
# An extra snippet is config, like nginx.conf itself: root writes it, anyone may read it.
SNIPPET_MODE = "0644"


@dataclass(frozen=True)
class DiskLayout:
    name: str
    device: str
    mount: str
    dir: str  # <mount>/cache (cache workload) or <mount>/data: the directory nginx uses
    state: str  # active | draining | failed
    media: str  # hdd | ssd | nvme
    filesystem: str  # xfs | ext4
    owner: str  # the user nginx's workers run as
    group: str
    mode: str
    thread_pool: str | None
    buckets: int  # buckets of the split that land on this disk
    min_free_bytes: int | None
    read_ahead_kb: int | None = None  # at least: the storage role raises a device's to this


@dataclass(frozen=True)
class NodeLayout:
    node: str
    nginx_user: str
    nginx_group: str
    listen_urls: tuple[str, ...]  # what a health check on the node requests, one per listen
    status_url: str | None  # stub_status, None without a status server
    error_log: str
    access_log: str | None
    disks: tuple[DiskLayout, ...]
    config_sha1: str | None = None  # of the rendered config text, when known
    # The kernel settings storage_disks applies (name, value, at_least: only ever raised).
    sysctls: tuple[Sysctl, ...] = ()
    # The certificate, key and ticket key files the config reads, with the mode each needs.
    tls_files: tuple[TlsFile, ...] = ()
    # The operator's include files (spec extra): part of the config tpgen owns, like nginx.conf.
    extra_files: tuple[ExtraFile, ...] = ()
    # The directories of the logs: nginx opens its logs as root at start and does not create
    # a missing directory; nginx_tpconfig creates the missing ones (logging.path may be new).
    log_dirs: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe: the field names as keys, lists for the tuples."""
        data = asdict(self)
        data["listen_urls"] = list(self.listen_urls)
        data["disks"] = [asdict(disk) for disk in self.disks]
        data["sysctls"] = [asdict(item) for item in self.sysctls]
        data["tls_files"] = [asdict(item) for item in self.tls_files]
        data["log_dirs"] = list(self.log_dirs)
        data["extra_files"] = [
            {**asdict(item), "contexts": list(item.contexts)} for item in self.extra_files
        ]
        return data


@dataclass(frozen=True)
class TlsFile:
    path: str  # on the node
    kind: str  # certificate | key | ticket_key
    mode: str  # TLS_CERT_MODE for certificates, TLS_KEY_MODE for secrets


@dataclass(frozen=True)
class ExtraFile:
    path: str  # on the node
    contexts: tuple[str, ...]  # main | http | server | location: where the config includes it
    mode: str  # SNIPPET_MODE
    kind: str = "snippet"  # beside tls_files' kinds: the role copies both the same way


def node_layout(plan: Plan, config_text: str | None = None) -> NodeLayout:
    """The layout of the plan's node; ``config_text`` (the rendered config) gives its sha1."""
    user = plan.user.value
    group = plan.group.value
    return NodeLayout(
        node=plan.node_name,
        nginx_user=user,
        nginx_group=group,
        listen_urls=tuple(
            local_url(socket.address, "/", "https" if "ssl" in socket.parameters.value else "http")
            for socket in plan.listens
            if not socket.quic
        ),
        status_url=local_url(plan.status_listen, plan.status_location.value),
        error_log=plan.error_log,
        access_log=plan.access_log,
        disks=tuple(_disk_layout(disk, user, group) for disk in plan.disks),
        config_sha1=None if config_text is None else _sha1(config_text),
        sysctls=plan.sysctls,
        tls_files=tls_files(plan),
        extra_files=extra_files(plan),
        log_dirs=tuple(
            dict.fromkeys(posixpath.dirname(p) for p in (plan.error_log, plan.access_log) if p)
        ),
    )


def extra_files(plan: Plan) -> tuple[ExtraFile, ...]:
    """Every include file of spec extra, once, with every context that includes it."""
    contexts: dict[str, list[str]] = {}
    for context, path in plan.extra_files:
        contexts.setdefault(path, []).append(context)
    return tuple(ExtraFile(path, tuple(found), SNIPPET_MODE) for path, found in contexts.items())


def tls_files(plan: Plan) -> tuple[TlsFile, ...]:
    """Every file the TLS config reads, once, keys and ticket keys readable by root only."""
    found: dict[str, TlsFile] = {}
    for server in plan.servers:
        if server.certificate and server.certificate_key:
            cert, key = server.certificate.value, server.certificate_key.value
            found.setdefault(cert, TlsFile(cert, "certificate", TLS_CERT_MODE))
            found.setdefault(key, TlsFile(key, "key", TLS_KEY_MODE))
    for path in plan.tls.ticket_keys.value if plan.tls and plan.tls.ticket_keys else ():
        found.setdefault(path, TlsFile(path, "ticket_key", TLS_KEY_MODE))
    return tuple(found.values())


def local_url(listen: str, path: str, scheme: str = "http") -> str:
    """The URL that reaches a ``listen`` address of the plan from the node itself.

    A wildcard address is reached on loopback: 0.0.0.0 through 127.0.0.1, :: through ::1.
    """
    host, _, port = listen.rpartition(":")
    address = ipaddress.ip_address(host.strip("[]"))
    if address.is_unspecified:
        address = ipaddress.ip_address("::1" if address.version == 6 else "127.0.0.1")
    shown = f"[{address}]" if address.version == 6 else str(address)
    return f"{scheme}://{shown}:{port}{path}"


def _disk_layout(disk: DiskPlan, owner: str, group: str) -> DiskLayout:
    return DiskLayout(
        name=disk.name,
        device=disk.device,
        mount=disk.mount,
        dir=disk.dir,
        state=disk.state,
        media=disk.media,
        filesystem=disk.filesystem,
        owner=owner,
        group=group,
        mode=DIR_MODE,
        thread_pool=disk.thread_pool.name if disk.thread_pool else None,
        buckets=disk.bucket_count,
        min_free_bytes=disk.cache.min_free.value if disk.cache else None,
        read_ahead_kb=disk.read_ahead_kb.value if disk.read_ahead_kb else None,
    )


def _sha1(text: str) -> str:
    # The bytes Ansible writes and checksums (to_bytes: UTF-8, surrogates as their bytes).
    data = text.encode("utf-8", "surrogateescape")
    return hashlib.sha1(data, usedforsecurity=False).hexdigest()
