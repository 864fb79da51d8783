#!/usr/bin/python
# Runs on the node. The checks are tpgen's doctor package itself (generator/tpgen/ops/doctor),
# reached through plugins/module_utils/tpgen, a mirror whose symlinks point at the one copy:
# AnsiballZ ships the doctor modules and tpgen.spec.units with this module, and they import
# nothing but the standard library and each other, so the node needs python3 only
# (docs/operations.md says why this and not a copied script or a second copy of the code).
"""Ansible module tpgen_doctor: check a storage node against the plan's node layout."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: tpgen_doctor
short_description: Check a storage node against the node layout tpgen planned for it
description:
  - Runs tpgen doctor on the node, python3 only (no tpgen, no pydantic there) - nginx built
    with threads (C(nginx -V)); every disk mounted at its place, from its device, read-write,
    on a device of its own; free space and inodes; a cache directory that can be written and
    that the nginx user owns; the live configuration against the sha1 of the rendered one; the
    error log since O(since) (thread-pool queue overflows, full keys zones, disk errors); and
    stub_status.
  - Returns the C(tpgen-doctor/1) document, the same as C(tpgen doctor --json) prints. The
    module never fails on what it finds; the play decides (see doctor.yml, C(fail_on)).
  - Changes nothing. It writes and removes one small probe file in each active disk's cache
    directory, also in check mode, since that write is the check.
version_added: "0.1.0"
options:
  layout:
    description:
      - The node layout of the plan, C(NodeLayout.to_dict()) - what the action C(tpgen_config)
        returns as C(tpgen_layout). Doctor reads the disks (dir, owner, state, min_free_bytes),
        C(error_log), C(status_url) and C(config_sha1) from it and derives nothing.
    type: dict
    required: true
  config:
    description: The live nginx configuration to compare with C(config_sha1).
    type: path
    default: /etc/nginx/nginx.conf
  error_log:
    description: Read this error log instead of the layout's C(error_log).
    type: path
  since:
    description:
      - Count error-log events newer than this - a duration as nginx writes it (V(30m), V(2h),
        V(1d)) or a local time (V(2026-11-21 18:00)).
    type: str
    default: 1h
  nginx:
    description: The nginx binary whose C(-V) is read.
    type: str
    default: nginx
  source:
    description: What the report names as its spec (C(spec) in the document).
    type: str
    default: layout
author:
  - tpgen maintainers (@tpgen)
"""

EXAMPLES = r"""
- name: Render the node's config on the controller (for its layout)
  tpgen_config:
    spec: "{{ nginx_tpconfig_node_spec }}"
    render_only: true
  register: rendered

- name: Run doctor on the node
  tpgen_doctor:
    layout: "{{ rendered.tpgen_layout }}"
    since: 2h
  register: doctor

- name: Show what needs attention
  ansible.builtin.debug:
    msg: "{{ doctor.report.findings | rejectattr('level', 'equalto', 'ok') | list }}"
"""

RETURN = r"""
report:
  description: The C(tpgen-doctor/1) document (docs/operations.md), as C(tpgen doctor --json).
  returned: success
  type: dict
  contains:
    schema:
      description: V(tpgen-doctor/1).
      type: str
    host:
      description: The node's host name.
      type: str
    status:
      description: The worst level found, V(ok), V(warn) or V(fail).
      type: str
    exit_code:
      description: 0, 1 or 2 for ok, warn, fail (what C(tpgen doctor) exits with).
      type: int
    counts:
      description: How many findings of each level.
      type: dict
    findings:
      description: One per check and subject - check, subject, level, message, fix, data.
      type: list
      elements: dict
status:
  description: The worst level found (the report's C(status)).
  returned: success
  type: str
  sample: fail
"""

# Below the documentation, as validate-modules wants it.
from typing import Any

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.tpgen.storage.plugins.module_utils.tpgen.ops.doctor.findings import (
    DoctorError,
)
from ansible_collections.tpgen.storage.plugins.module_utils.tpgen.ops.doctor.run import (
    node_report,
)

ARGUMENT_SPEC: dict[str, Any] = {
    "layout": {"type": "dict", "required": True},
    "config": {"type": "path", "default": "/etc/nginx/nginx.conf"},
    "error_log": {"type": "path"},
    "since": {"type": "str", "default": "1h"},
    "nginx": {"type": "str", "default": "nginx"},
    "source": {"type": "str", "default": "layout"},
}


def main() -> None:
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    params = module.params
    try:
        report = node_report(
            params["layout"],
            source=params["source"],
            config_path=params["config"],
            error_log=params["error_log"],
            since=params["since"],
            nginx_binary=params["nginx"],
        )
    except (DoctorError, OSError) as err:
        module.fail_json(msg=f"tpgen doctor: {err}")
    module.exit_json(changed=False, report=report, status=report["status"])


if __name__ == "__main__":
    main()
