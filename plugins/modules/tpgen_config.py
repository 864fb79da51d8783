# Documentation stub for the tpgen_config action plugin (plugins/action/tpgen_config.py).
# The work happens on the controller; the node only sees the copy and stat modules.
"""Documentation of the tpgen_config action."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: tpgen_config
short_description: Render a node's nginx.conf with tpgen and install it
description:
  - Builds the node's nginx configuration from a tpgen spec with the tpgen package imported
    by the controller's Python (the same environment that runs Ansible), then installs it with
    the C(copy) action, so O(validate), check mode and diff behave as they do for C(copy).
  - When the destination exists and is about to change, it is first copied to O(previous),
    so a play can restore it when the new configuration misbehaves.
  - A spec that tpgen rejects fails the task with tpgen's one-line-per-problem message before
    anything on the node is touched.
version_added: "0.1.0"
options:
  spec:
    description: The node spec as a mapping (the format of docs/spec.md).
    type: dict
    required: true
  dest:
    description: Where the configuration goes on the node. Required unless O(render_only=true).
    type: path
  previous:
    description: Where to keep the configuration being replaced. Nothing is kept when omitted.
    type: path
  source:
    description: Label used in tpgen's messages and the config header.
    type: str
    default: tpgen_spec of <inventory_hostname>
  render_only:
    description: Only render on the controller (validates the spec); touch nothing on the node.
    type: bool
    default: false
  validate:
    description: Command run on the node against the temporary copy, C(%s) being its path.
    type: str
  owner:
    description: Owner of O(dest).
    type: str
  group:
    description: Group of O(dest).
    type: str
  mode:
    description: Mode of O(dest).
    type: raw
    default: "0644"
author:
  - tpgen maintainers
"""

EXAMPLES = r"""
- name: Install the node's nginx config
  tpgen_config:
    spec: "{{ tpgen_spec }}"
    dest: /etc/nginx/nginx.conf
    previous: /etc/nginx/nginx.conf.tpgen-prev
    validate: nginx -t -c %s
"""

RETURN = r"""
previous:
  description: Path where the replaced configuration was kept, or null when nothing was replaced.
  returned: unless render_only
  type: str
tpgen_checksum:
  description: SHA-1 of the rendered configuration.
  returned: success
  type: str
tpgen_disks:
  description: The plan's disk layout (name, device, mount, dir, state, filesystem, media).
  returned: success
  type: list
  elements: dict
tpgen_listen:
  description: Address and port of the spec's C(listen) (tpgen's defaults applied).
  returned: success
  type: dict
tpgen_status:
  description: Address and port of the loopback stub_status server (tpgen's defaults applied).
  returned: success
  type: dict
tpgen_errors:
  description: One entry per problem tpgen found in the spec.
  returned: when the spec is rejected
  type: list
  elements: str
"""
