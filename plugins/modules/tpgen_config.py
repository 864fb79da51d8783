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
  tls_files:
    description:
      - Controller copies of the spec's certificate files, node path to controller path. With
        OCSP stapling not off and a resolver in the spec, tpgen reads each certificate from its
        copy here, or else from the node (fetched like C(slurp); keys are never read), so that
        C(tls.ocsp_stapling=auto) staples where a certificate names an OCSP responder.
    type: dict
    default: {}
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
  - tpgen maintainers (@tpgen)
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
  description: SHA-1 of the rendered configuration (the same as RV(tpgen_layout.config_sha1)).
  returned: success
  type: str
tpgen_source:
  description: The label of the spec in tpgen's messages and the config header.
  returned: success
  type: str
tpgen_layout:
  description:
    - The node layout of tpgen's plan (C(tpgen.api.node_layout)), what the node must look like for
      the rendered config to work. Roles, the health check and doctor read it instead of deriving
      anything from the spec.
  returned: success
  type: dict
  contains:
    node:
      description: The node's name.
      type: str
    nginx_user:
      description: The user nginx's workers run as (C(user) in the config).
      type: str
    nginx_group:
      description: Their group; nginx takes the group named like the user when C(user) names none.
      type: str
    listen_urls:
      description:
        - "One URL per TCP C(listen) socket of the config (C(*) gives two), as a request from
          the node itself reaches it (0.0.0.0 through 127.0.0.1, :: through [::1]), ending in
          C(/); C(https://) for a TLS listen."
      type: list
      elements: str
    status_url:
      description: The stub_status URL on the node's loopback status server, or null without one.
      type: str
    error_log:
      description: Path of nginx's error log.
      type: str
    access_log:
      description: Path of nginx's access log, or null when it is off.
      type: str
    config_sha1:
      description: SHA-1 of the rendered configuration.
      type: str
    disks:
      description:
        - One entry per disk of the spec, failed ones included, with C(name), C(device),
          C(mount), C(dir) (the directory nginx uses), C(state), C(media), C(filesystem),
          C(owner), C(group), C(mode) (of C(dir)), C(thread_pool) (name or null), C(buckets)
          and C(min_free_bytes) (null but on cache nodes).
      type: list
      elements: dict
    sysctls:
      description:
        - The kernel settings the config needs, each with C(name), C(value) and C(at_least)
          (a floor, only ever raised); storage_disks applies them.
      type: list
      elements: dict
    tls_files:
      description:
        - The certificate, key and ticket key files the config reads, each with C(path),
          C(kind) (certificate, key or ticket_key) and C(mode) (0600 for keys).
      type: list
      elements: dict
tpgen_errors:
  description: One entry per problem tpgen found in the spec.
  returned: when the spec is rejected
  type: list
  elements: str
"""
