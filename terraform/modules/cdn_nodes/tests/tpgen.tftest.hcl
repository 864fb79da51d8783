# The spec's rules are tpgen's: Terraform checks the nodes' structure, and `terraform apply` runs
# `tpgen validate` on every rendered spec (terraform_data.tpgen_validate, main.tf).
# "plan_leaves_meaning_to_tpgen" proves the HCL no longer re-states a spec rule: each node
# breaks one rule of tpgen's and the plan still succeeds. tests/terraform/test_tpgen_rules.py
# applies the same nodes and checks that each is refused with tpgen's own message. Names are the
# exception: the plan refuses them with tpgen's rule (tests/validation.tftest.hcl).
# "apply_accepts_what_tpgen_accepts" applies for real (tpgen must be on PATH).

variables {
  ssh_authorized_keys = ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBx7mDWWlfKDD3qBbkJ+4PqS0mkWMGzdAv9kXpbX5l0c tpgen@example"]
  nodes = [
    {
      name     = "edge-01"
      address  = "192.0.2.10"
      cores    = 8
      memory   = "32GiB"
      workload = { type = "cache", upstreams = ["origin.example.net:8080"] }
      disks    = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }]
    },
  ]
}

run "plan_leaves_meaning_to_tpgen" {
  command = plan

  variables {
    tuning = { "unknown-tuning-key" = { threads = 4 } }
    nodes = [
      { name = "device-double-slash", address = "192.0.2.1", workload = { type = "origin" }, disks = [{ device = "/dev//sdb", size = "4TB", media = "hdd" }] },
      { name = "mount-double-slash", address = "192.0.2.2", workload = { type = "origin" }, disks = [{ device = "/dev/sdb", mount = "/srv//d1", size = "4TB", media = "hdd" }] },
      { name = "relative-mount", address = "192.0.2.3", workload = { type = "origin" }, disks = [{ device = "/dev/sdb", mount = "srv/d1", size = "4TB", media = "hdd" }] },
      {
        name = "nested-mount", address = "192.0.2.4", workload = { type = "origin" }
        disks = [
          { device = "/dev/sdb", size = "4TB", media = "hdd", mount = "/srv/data" },
          { device = "/dev/sdc", size = "4TB", media = "hdd" },
        ]
      },
      {
        name = "duplicate-devices", address = "192.0.2.5", workload = { type = "origin" }
        disks = [
          { device = "/dev/sdb", size = "4TB", media = "hdd" },
          { device = "/dev/sdb", size = "4TB", media = "hdd" },
        ]
      },
      {
        name = "duplicate-disk-names", address = "192.0.2.6", workload = { type = "origin" }
        disks = [
          { name = "d2", device = "/dev/sdb", size = "4TB", media = "hdd", mount = "/srv/data/a" },
          { device = "/dev/sdc", size = "4TB", media = "hdd", mount = "/srv/data/b" },
        ]
      },
      { name = "unknown-media", address = "192.0.2.8", workload = { type = "origin" }, disks = [{ device = "/dev/sdb", size = "4TB", media = "tape" }] },
      { name = "unknown-disk-set-media", address = "192.0.2.9", workload = { type = "origin" }, disk_set = { count = 2, size = "4TB", media = "floppy" } },
      { name = "unknown-disk-state", address = "192.0.2.10", workload = { type = "origin" }, disks = [{ device = "/dev/sdb", size = "4TB", media = "hdd", state = "broken" }] },
      { name = "unknown-filesystem", address = "192.0.2.11", workload = { type = "origin" }, disks = [{ device = "/dev/sdb", size = "4TB", media = "hdd", filesystem = "btrfs" }] },
      { name = "size-without-unit", address = "192.0.2.12", workload = { type = "origin" }, disks = [{ device = "/dev/sdb", size = "4 terabytes", media = "hdd" }] },
      { name = "unknown-workload", address = "192.0.2.13", workload = { type = "proxy" }, disks = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }] },
      { name = "cache-without-upstreams", address = "192.0.2.14", workload = { type = "cache" }, disks = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }] },
      { name = "upstreams-on-origin", address = "192.0.2.15", workload = { type = "origin", upstreams = ["o.example.net:80"] }, disks = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }] },
      { name = "upstream-without-port", address = "192.0.2.16", workload = { type = "cache", upstreams = ["origin.example.net"] }, disks = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }] },
      { name = "bad-inactive", address = "192.0.2.17", workload = { type = "cache", upstreams = ["o.example.net:80"], inactive = "seven days" }, disks = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }] },
      { name = "fractional-cores", address = "192.0.2.18", cores = 2.5, workload = { type = "origin" }, disks = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }] },
      { name = "port-out-of-range", address = "192.0.2.19", workload = { type = "origin" }, disks = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }], listen = [{ port = 70000 }] },
      { name = "unknown-tuning-key", address = "192.0.2.21", workload = { type = "origin" }, disks = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }] },
      { name = "http3-without-v3", address = "192.0.2.22", workload = { type = "origin" }, disks = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }], listen = [{ address = "*", port = 443, tls = true, http3 = true }], tls = { certificates = [{ cert = "/etc/nginx/tls/edge.crt", key = "/etc/nginx/tls/edge.key" }] } },
    ]
  }

  assert {
    condition     = length(terraform_data.tpgen_validate) == length(var.nodes)
    error_message = "Every node's spec must go to `tpgen validate` at apply."
  }
}

run "apply_accepts_what_tpgen_accepts" {
  command = apply

  variables {
    nodes = [
      {
        # The Terraform regex of old refused '+'; tpgen's device rule allows it.
        name     = "by-id-device"
        address  = "192.0.2.30"
        cores    = 8
        memory   = "32GiB"
        workload = { type = "origin" }
        disks    = [{ device = "/dev/disk/by-id/a+b", size = "4TB", media = "hdd" }]
      },
      {
        # cores and memory come from facts in the Ansible role: apply must not refuse the node.
        name     = "facts-later"
        address  = "192.0.2.31"
        workload = { type = "cache", upstreams = ["origin.example.net:8080"] }
        disk_set = { count = 4, size = "14TB", media = "hdd" }
      },
      {
        # An edge: the spec's listen list (dual stack, TLS, HTTP/2 and HTTP/3), tls and nginx.
        name     = "tls-edge"
        address  = "192.0.2.32"
        workload = { type = "origin", resolver = ["192.0.2.53"] }
        disks    = [{ device = "/dev/nvme1n1", size = "2TB", media = "nvme" }]
        listen = [
          { address = "*", port = 443, tls = true, http2 = true, http3 = true },
          { address = "127.0.0.1", port = 8080 },
        ]
        tls = {
          certificates        = [{ cert = "/etc/nginx/tls/edge.crt", key = "/etc/nginx/tls/edge.key", server_names = ["edge.example.net"] }]
          redirect_http       = true
          ocsp_stapling       = "on"
          trusted_certificate = "/etc/nginx/tls/ca-chain.pem"
        }
        nginx = { version = "1.26.3", http_v3 = true }
      },
    ]
  }

  assert {
    condition     = jsonencode(sort(keys(terraform_data.tpgen_validate))) == jsonencode(["by-id-device", "facts-later", "tls-edge"])
    error_message = "tpgen must have accepted every spec."
  }
  assert {
    condition = jsonencode(output.specs["tls-edge"].listen) == jsonencode([
      { address = "*", port = 443, tls = true, http2 = true, http3 = true },
      { address = "127.0.0.1", port = 8080 },
    ])
    error_message = "The listen list must reach the spec in its order, with only the keys given."
  }
  assert {
    condition     = output.specs["tls-edge"].tls.ocsp_stapling == "on" && jsonencode(output.specs["tls-edge"].workload.resolver) == jsonencode(["192.0.2.53"])
    error_message = "tls and workload.resolver must reach the spec (OCSP stapling needs both)."
  }
  assert {
    condition     = output.specs["by-id-device"].disks[0].device == "/dev/disk/by-id/a+b"
    error_message = "The device must reach the spec unchanged."
  }
  assert {
    condition     = output.specs["facts-later"].node == { name = "facts-later" }
    error_message = "The inventory spec keeps cores and memory absent: only the validated copy gets stand-ins."
  }
}

run "no_check_without_a_tpgen_command" {
  command = plan

  variables {
    tpgen_command = null
  }

  assert {
    condition     = length(terraform_data.tpgen_validate) == 0
    error_message = "tpgen_command = null must skip the check."
  }
}

# The spec reaches tpgen through the environment: a spec past what it can carry is refused at
# plan (tests/terraform/test_cdn_nodes_hostile.py: a long one that fits gets tpgen's message).
run "plan_refuses_a_spec_the_environment_cannot_carry" {
  command = plan

  variables {
    nodes = [{ name = "edge-01", address = "192.0.2.10", workload = { type = "origin", cache_key = format("%250001s", "x") }, disks = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }] }]
  }

  expect_failures = [terraform_data.tpgen_validate]
}
