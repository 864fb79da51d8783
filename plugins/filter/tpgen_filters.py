# Filters that expose the tpgen package (imported from the controller's Python) to plays.
"""tpgen filters: complete a spec from facts, the plan's node layout, the disk of a cache key."""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from typing import Any

from ansible.errors import AnsibleFilterError


def plain(value: Any, source: str = "tpgen_spec") -> Any:
    """Plain dict/list/scalars (Ansible passes tagged subclasses): tpgen's own normaliser."""
    api = _api()
    try:
        return api.plain_data(value, source)
    except api.SpecError as exc:
        # A structure that contains itself or nests without bound: say so, not a traceback.
        raise AnsibleFilterError(f"tpgen rejected the spec:\n{exc}") from None


def _api() -> Any:
    try:
        from tpgen import api  # pylint: disable=import-outside-toplevel
    except ImportError as exc:
        raise AnsibleFilterError(
            f"the tpgen package is not importable from the Python that runs Ansible "
            f"({sys.executable}): {exc}. The collection tpgen.storage needs it on the "
            f"controller (its requirements.txt): install it into that environment "
            f"(pip install -r <collection>/requirements.txt, or pip install -e <repo>) "
            f"or run ansible from the repo's .venv."
        ) from exc
    return api


def _plan(spec: Any, source: str) -> Any:
    api = _api()
    if not isinstance(spec, Mapping):
        raise AnsibleFilterError(
            f"{source}: expected the node spec as a mapping, got {type(spec).__name__}"
        )
    try:
        return api.make_plan(api.spec_from_mapping(plain(spec, source), source=source), source)
    except api.SpecError as exc:
        raise AnsibleFilterError(f"tpgen rejected the spec:\n{exc}") from None


def tpgen_node_spec(
    spec: Any,
    name: Any = None,
    cores: Any = None,
    memory_mb: Any = None,
) -> dict[str, Any]:
    """Fill node.name, node.cores and node.memory ("<n>MiB") when the spec leaves them out.

    Values present in the spec always win; a fact that is None is not used.
    """
    if spec is None:
        spec = {}
    if not isinstance(spec, Mapping):
        raise AnsibleFilterError(f"tpgen_node_spec: expected a mapping, got {type(spec).__name__}")
    try:
        return dict(
            _api().fill_node_facts(plain(spec), name=name, cores=cores, memory_mb=memory_mb)
        )
    except TypeError as exc:
        raise AnsibleFilterError(f"tpgen_node_spec: {exc}") from None


def tpgen_disk_states(spec: Any, names: Any, state: str = "failed") -> dict[str, Any]:
    """The spec with the named disks in ``state`` (the disks tpgen guard failed on the node)."""
    if not isinstance(spec, Mapping):
        raise AnsibleFilterError(
            f"tpgen_disk_states: expected a mapping, got {type(spec).__name__}"
        )
    return dict(_api().with_disk_states(plain(spec), dict.fromkeys(plain(names or []), state)))


def tpgen_nginx_facts(spec: Any, nginx_v: Any = None) -> dict[str, Any]:
    """Fill nginx.version, nginx.http_v3 and nginx.configure (the build's configure
    arguments: which modules it has) from the output of the node's `nginx -V` when the spec
    leaves them out (no output: the spec as it is)."""
    text = str(nginx_v or "")
    version = re.search(r"nginx version: [^/\s]+/([0-9]+\.[0-9]+\.[0-9]+)", text)
    if version is None:
        return dict(plain(spec or {}))
    configure = re.search(r"^configure arguments:(.*)$", text, re.M)
    try:
        return dict(
            _api().fill_nginx_facts(
                plain(spec or {}),
                version=version.group(1),
                http_v3="--with-http_v3_module" in text,
                configure=configure.group(1).strip() if configure else None,
            )
        )
    except TypeError as exc:
        raise AnsibleFilterError(f"tpgen_nginx_facts: {exc}") from None


def tpgen_tls_problems(spec: Any, files: Any = None, source: str = "tpgen_spec") -> list[str]:
    """What is wrong with the spec's certificate and key files, read from the controller paths
    ``files`` maps node paths to (missing, not PEM, key and certificate not a pair)."""
    api = _api()
    try:
        parsed = api.spec_from_mapping(plain(spec, source), source=source)
    except api.SpecError as exc:
        raise AnsibleFilterError(f"tpgen rejected the spec:\n{exc}") from None
    mapping = {str(k): str(v) for k, v in dict(files or {}).items()}
    return [str(item) for item in api.tls_file_problems(parsed, mapping, source)]


def tpgen_extra_problems(spec: Any, files: Any = None, source: str = "tpgen_spec") -> list[str]:
    """What tpgen refuses in the spec's extra snippets that ``files`` maps from node paths to
    controller copies (missing, unreadable, a directive that breaks the per-disk layout)."""
    api = _api()
    try:
        parsed = api.spec_from_mapping(plain(spec, source), source=source)
        mapping = {str(k): str(v) for k, v in dict(files or {}).items()}
        return [str(item) for item in api.extra_file_problems(parsed, mapping, source)]
    except api.SpecError as exc:
        raise AnsibleFilterError(f"tpgen rejected the spec:\n{exc}") from None


def tpgen_node_layout(spec: Any, source: str = "tpgen_spec") -> dict[str, Any]:
    """The node layout of tpgen's plan of a (completed) spec: disks with their directory,
    owner and mode, the nginx user, listen and status URLs, log paths."""
    plan = _plan(spec, source)
    return dict(_api().node_layout(plan).to_dict())


def tpgen_disk_for_key(spec: Any, key: Any, source: str = "tpgen_spec") -> Any:
    """The disk a cache key (or origin URI) lands on; a list of keys gives a list of disks."""
    plan = _plan(spec, source)
    api = _api()
    if isinstance(key, (list, tuple)):
        return [str(api.disk_for_key(plan, str(item))) for item in key]
    return str(api.disk_for_key(plan, str(key)))


def tpgen_cache_targets(spec: Any, keys: Any, source: str = "tpgen_spec") -> list[dict[str, Any]]:
    """For each cache key: its disk, the disk's zone directory and levels, the slice size (what
    the module tpgen_purge needs on the node); a single key may be given as a string."""
    plan = _plan(spec, source)
    api = _api()
    items = [keys] if isinstance(keys, str) else list(keys)
    try:
        return [dict(api.cache_target(plan, str(key)).to_dict()) for key in items]
    except ValueError as exc:
        raise AnsibleFilterError(f"tpgen_cache_targets: {exc}") from None


class FilterModule:
    """tpgen filters."""

    def filters(self) -> dict[str, Any]:
        return {
            "tpgen_node_spec": tpgen_node_spec,
            "tpgen_node_layout": tpgen_node_layout,
            "tpgen_disk_for_key": tpgen_disk_for_key,
            "tpgen_cache_targets": tpgen_cache_targets,
            "tpgen_disk_states": tpgen_disk_states,
            "tpgen_nginx_facts": tpgen_nginx_facts,
            "tpgen_tls_problems": tpgen_tls_problems,
            "tpgen_extra_problems": tpgen_extra_problems,
        }
