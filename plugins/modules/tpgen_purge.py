#!/usr/bin/python
# Runs on the node. The purge is tpgen's own (generator/tpgen/ops/purge.py), reached through
# plugins/module_utils/tpgen, whose symlink points at the one copy: standard library only, so the
# node needs python3 and no tpgen (docs/operations.md, "Purge").
"""Ansible module tpgen_purge: remove cache keys' files from a storage node's disks."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: tpgen_purge
short_description: Remove the cached files of cache keys from a tpgen cache node
description:
  - nginx OSS has no purge. Each target names a key, the disk the plan picks for it, the disk's
    cache zone directory, the zone's levels and the slice size (the filter
    C(tpgen_cache_targets) computes them on the controller). The module removes the key's file
    (md5 of the key, levels from its end), or every slice's file of a sliced object, whose
    length it reads from the first cached slice's Content-Range.
  - In check mode it removes nothing and returns the files it would remove.
version_added: "0.1.0"
options:
  targets:
    description: What C(tpgen_cache_targets(spec, keys)) returns - key, disk, dir, levels,
      slice_bytes each.
    type: list
    elements: dict
    required: true
  probe_bytes:
    description: A sliced object whose first slice is not cached is searched up to this size.
    type: int
    default: 68719476736
author:
  - tpgen maintainers (@tpgen)
"""

EXAMPLES = r"""
- name: Purge two keys
  tpgen.storage.tpgen_purge:
    targets: >-
      {{ nginx_tpconfig_node_spec
         | tpgen.storage.tpgen_cache_targets(['httpcdn.example.net/a.mp4']) }}
"""

RETURN = r"""
purged:
  description: One entry a key - key, disk and the files removed (or, in check mode, found).
  returned: success
  type: list
  elements: dict
"""

# Below the documentation, as validate-modules wants it.
from typing import Any

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.tpgen.storage.plugins.module_utils.tpgen.ops.purge import purge

ARGUMENT_SPEC: dict[str, Any] = {
    "targets": {"type": "list", "elements": "dict", "required": True},
    "probe_bytes": {"type": "int", "default": 64 << 30},
}


def main() -> None:
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    purged: list[dict[str, Any]] = []
    for target in module.params["targets"]:
        try:
            files = purge(
                target, dry_run=module.check_mode, probe_bytes=module.params["probe_bytes"]
            )
        except OSError as err:  # a cache file nginx's user may not remove, a dead disk
            module.fail_json(
                msg=f"tpgen purge: {target['key']} on {target['disk']}: {err}",
                changed=any(p["files"] for p in purged),
                purged=purged,
            )
        purged.append({"key": target["key"], "disk": target["disk"], "files": files})
    module.exit_json(changed=any(p["files"] for p in purged), purged=purged)


if __name__ == "__main__":
    main()
