"""The library API: the only import of the CLI's commands, the Ansible plugins, the bench and ops.

Beside spec -> plan -> text it exports the bucket map's own parts (build_map, split_table, ...)
for the bench's studies of them.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Literal

# The module, not its function: a test that replaces tpgen.plan.make_plan reaches every caller.
import tpgen.plan as _plan
from tpgen.check import CheckResult, check_plan
from tpgen.errors import NginxUnavailable, Problem, SpecError, TpgenError
from tpgen.plan import Plan
from tpgen.plan.buckets import (
    SPLIT_STEPS,
    BucketMap,
    SplitPart,
    SplitTable,
    assign_buckets,
    bucket_for_hash,
    build_map,
    disk_for_hash,
    iter_maps,
    moved_buckets,
    murmur_hash2,
    split_parts,
    split_table,
)

# The node layout: the one contract from the controller to the node.
from tpgen.plan.cachefiles import CacheTarget, cache_target

# Three of the plan's socket settings, for the bench that measures tcp_nopush without disks.
from tpgen.plan.defaults import (
    HDD_WORKER_THREADS,
    SENDFILE_MAX_CHUNK,
    SENDFILE_MAX_CHUNK_POOLED,
)
from tpgen.plan.layout import DiskLayout, NodeLayout, node_layout
from tpgen.plan.remap import Remap, compare
from tpgen.render import UnsafeValue
from tpgen.render import render_config as _render
from tpgen.spec.build import build_options
from tpgen.spec.certs import bundle_problems, certificate_facts, certificate_problems
from tpgen.spec.facts import UNREAD, CertificateFacts
from tpgen.spec.load import (
    LineMap,
    SpecDocument,
    load_spec_file,
    parse_spec_text,
    plain_data,
    read_spec_document,
    spec_from_mapping,
    with_lines,
)
from tpgen.spec.model import NodeSpec
from tpgen.spec.own_build import unbuilt_problems
from tpgen.spec.snippets import snippet_problems

# The spec's one size parser and its short form, for the bench's options and headers.
from tpgen.spec.units import parse_size, short_size
from tpgen.spec.validate import named_files

__all__ = [
    "HDD_WORKER_THREADS",
    "SENDFILE_MAX_CHUNK",
    "SENDFILE_MAX_CHUNK_POOLED",
    "SPLIT_STEPS",
    "BucketMap",
    "CacheTarget",
    "CertificateFacts",
    "CheckResult",
    "DiskLayout",
    "LineMap",
    "NginxUnavailable",
    "NodeLayout",
    "NodeSpec",
    "Plan",
    "Remap",
    "SpecDocument",
    "SpecError",
    "SplitPart",
    "SplitTable",
    "TpgenError",
    "UnsafeValue",
    "assign_buckets",
    "bucket_for_key",
    "build_map",
    "cache_target",
    "check_plan",
    "check_tls_files",
    "compare",
    "compare_specs",
    "disk_for_hash",
    "disk_for_key",
    "draft_problems",
    "extra_file_problems",
    "fill_nginx_facts",
    "fill_node_facts",
    "iter_maps",
    "load_plan",
    "load_spec_file",
    "load_spec_plan",
    "make_plan",
    "moved_buckets",
    "murmur_hash2",
    "named_files",
    "node_layout",
    "parse_size",
    "plain_data",
    "read_spec_document",
    "render_config",
    "short_size",
    "spec_from_mapping",
    "split_parts",
    "split_table",
    "tls_file_facts",
    "tls_file_problems",
    "with_disk_states",
]


def make_plan(
    spec: NodeSpec,
    source: str = "<spec>",
    lines: LineMap | None = None,
    certificates: CertificateFacts = UNREAD,
) -> Plan:
    """The plan; a refusal names the line of its field when ``lines`` (from the loader) is given.
    ``certificates``: what was read of the certificate files (tls_file_facts), if anything."""
    return _plan.make_plan(spec, source, lines, certificates)


ORIGIN_CA = ("origin", "ca_file")
# Which of the spec's extra snippets load_plan reads: none; those that are here (a controller
# validates a node's spec without the node's files); or all, a missing one refused.
Snippets = Literal["off", "present", "required"]


def load_plan(path: str, snippets: Snippets = "off", *, tls_files: bool = False) -> Plan:
    """The plan of a spec file: :func:`load_spec_plan`'s plan."""
    return load_spec_plan(path, snippets, tls_files=tls_files)[1]


def load_spec_plan(
    path: str, snippets: Snippets = "off", *, tls_files: bool = False, origin_ca: bool = False
) -> tuple[NodeSpec, Plan]:
    """The spec of a file and its plan; every refusal names the file and the line of its field.

    ``snippets``: read the spec's extra include files and refuse what tpgen does not allow
    in them (spec/snippets.py). ``tls_files``: also read the certificate, key and ticket key
    files where the spec says they are (on the node): refuse missing or mismatched ones, and
    give the plan what the certificates say (their OCSP responders). ``origin_ca`` (and
    ``tls_files``): the origins' CA bundle the config names must be here and hold PEM
    certificates — the offline check reads it at its path, as nginx does on the node."""
    return _document_plan(
        read_spec_document(path), snippets, tls_files=tls_files, origin_ca=origin_ca
    )


def _document_plan(
    document: SpecDocument, snippets: Snippets, *, tls_files: bool, origin_ca: bool
) -> tuple[NodeSpec, Plan]:
    """:func:`load_spec_plan` of a spec already read."""
    path = document.source
    spec = spec_from_mapping(document.data, path, document.lines)
    certificates = UNREAD
    if tls_files:
        _refuse(certificate_problems(spec), path, document.lines)
        certificates = certificate_facts(spec)
    # The raw path: the renderer's one escaping rule (nginx_literal "comment") makes it one
    # printable line in the header; escaping here too would double the backslashes.
    plan = make_plan(spec, path, document.lines, certificates)
    unbuilt = unbuilt_problems(spec, _render(plan)) if spec.nginx.configure is not None else []
    _refuse(unbuilt, path, document.lines)
    bundle = plan.proxy_ssl_trusted_certificate
    if (origin_ca or tls_files) and bundle is not None:
        unread = bundle_problems(bundle.value, ORIGIN_CA, holds="the origins' CAs", parse=False)
        _refuse(list(unread), path, document.lines)
    if snippets != "off":
        problems = snippet_problems(
            spec, plan.shadowed_by_tpgen, required=snippets == "required", config=_config(plan)
        )
        _refuse(problems, path, document.lines)
    return spec, plan


def compare_specs(old_path: str, new_path: str) -> Remap:
    """What changing a node's spec from ``old_path`` to ``new_path`` does to its cache; a
    refusal names the new spec's file and the line of its field, as validate's do."""
    old = load_plan(old_path)
    document = read_spec_document(new_path)
    new = _document_plan(document, "off", tls_files=False, origin_ca=False)[1]
    try:
        return compare(old, new)
    except SpecError as err:
        raise with_lines(err, new_path, document.lines) from None


def draft_problems(text: str, source: str = "<draft>") -> list[Problem]:
    """validate's refusals of a spec's text (its own snippets and files not read): none when
    ``tpgen validate`` would accept it."""
    try:
        document = parse_spec_text(text, source)
        render_config(_document_plan(document, "off", tls_files=False, origin_ca=False)[1])
    except SpecError as err:
        return list(err.problems)
    return []


def _refuse(problems: list[Problem], path: str, lines: LineMap) -> None:
    """A SpecError of ``problems``, each with the line of its field, if there are any."""
    if problems:
        raise with_lines(SpecError(problems), path, lines)


def unbuilt_config_problems(spec: NodeSpec, config: str, source: str = "<spec>") -> list[Problem]:
    """One problem (on nginx.configure) per module tpgen's own ``config`` needs and the
    build the spec names lacks (load_spec_plan refuses them too); none without
    nginx.configure."""
    return [replace(item, file=source) for item in unbuilt_problems(spec, config)]


def _config(plan: Plan) -> str | None:
    """tpgen's config, which the snippets are checked in (none without snippets)."""
    return _render(plan) if plan.extra_files else None


def render_config(plan: Plan, source: str | None = None) -> str:
    if source is not None and source != plan.source:
        plan = replace(plan, source=source)
    return _render(plan)


def disk_for_key(plan: Plan, key: str) -> str:
    """The disk nginx's split_clients picks for a key (a cache key, or a URI on origin/vod)."""
    return disk_for_hash(plan.split, murmur_hash2(_key_bytes(key)))


def bucket_for_key(plan: Plan, key: str) -> int:
    return bucket_for_hash(murmur_hash2(_key_bytes(key)), plan.buckets.value)


def _key_bytes(key: str) -> bytes:
    # A key from argv that is not UTF-8 carries its bytes as surrogates: hash those bytes.
    return key.encode("utf-8", "surrogateescape")


def check_tls_files(path: str) -> None:
    """Refuse a spec whose certificate, key or ticket key files are missing here or do not
    match, or whose plan cannot be made with what the certificates say (SpecError, exit 2):
    run on the node, or where copies sit at the same paths."""
    load_plan(path, tls_files=True)


def tls_file_facts(spec: NodeSpec, files: Mapping[str, str]) -> CertificateFacts:
    """What the certificates say (their OCSP responders), read from where ``files`` (node path
    → local path: the controller's copies, or copies fetched from the node) says they are; a
    certificate it leaves out stays unknown."""
    return certificate_facts(spec, files.get)


def tls_file_problems(
    spec: NodeSpec, files: Mapping[str, str], source: str = "<spec>"
) -> list[Problem]:
    """The problems of the spec's TLS files read from where ``files`` (node path → local
    path, e.g. the controller's copies) says they are; a path it leaves out is read as is."""
    found = certificate_problems(spec, lambda path: files.get(path, path))
    return [replace(item, file=source) for item in found]


def extra_file_problems(
    spec: NodeSpec, files: Mapping[str, str], source: str = "<spec>"
) -> list[Problem]:
    """The refusals of the spec's extra snippets that ``files`` (node path → local path, the
    controller's copies) maps, each read from there; a snippet it leaves out is not read
    here. A spec the plan refuses raises SpecError."""
    plan = make_plan(spec, source)
    found = snippet_problems(
        spec,
        plan.shadowed_by_tpgen,
        locate=lambda path: files.get(path, path),
        required=True,
        only=files,
        config=_config(plan),
    )
    return [replace(item, file=source) for item in found]


def fill_nginx_facts(
    data: Mapping[str, Any],
    *,
    version: Any = None,
    http_v3: Any = None,
    configure: Any = None,
) -> dict[str, Any]:
    """A copy of a spec mapping with nginx.version, nginx.http_v3 and nginx.configure (the
    configure arguments) taken from the node's `nginx -V` where the spec leaves them out; a
    fact that is None is not used."""
    result = copy.deepcopy(dict(data))
    target = result.get("nginx")
    target = {} if target is None else target
    if not isinstance(target, dict):
        raise TypeError(f"nginx must be a mapping, got {type(target).__name__}")
    if "version" not in target and version is not None:
        target["version"] = str(version)
    if "http_v3" not in target and http_v3 is not None:
        target["http_v3"] = bool(http_v3)
    if "configure" not in target and configure is not None:
        target["configure"] = build_options(str(configure))
    if target:
        result["nginx"] = target
    return result


def with_disk_states(data: Mapping[str, Any], states: Mapping[str, str]) -> dict[str, Any]:
    """A copy of a spec mapping whose disks named in ``states`` take the state given there
    (guard's failed or draining disks); other disks and other keys stay as they are."""
    result = copy.deepcopy(dict(data))
    for disk in result.get("disks") or []:
        if isinstance(disk, dict) and disk.get("name") in states:
            disk["state"] = states[disk["name"]]
    return result


def fill_node_facts(
    data: Mapping[str, Any], *, name: Any = None, cores: Any = None, memory_mb: Any = None
) -> dict[str, Any]:
    """A copy of a spec mapping with node.name, node.cores and node.memory ("<n>MiB") taken
    from the host's facts where the spec leaves them out; a fact that is None is not used.

    Raises TypeError when ``node`` is not a mapping.
    """
    result = copy.deepcopy(dict(data))
    node = result.get("node")
    if node is None:
        node = {}
    if not isinstance(node, dict):
        raise TypeError(f"node must be a mapping, got {type(node).__name__}")
    facts = {
        "name": None if name is None else str(name),
        "cores": None if cores is None else int(cores),
        "memory": None if memory_mb is None else f"{int(memory_mb)}MiB",
    }
    for key, value in facts.items():
        if key not in node and value is not None:
            node[key] = value
    result["node"] = node
    return result
