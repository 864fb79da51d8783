# tpgen's rules for names, copied from generator/tpgen/spec/model.py (HOSTNAME_RE, DISK_NAME_RE,
# SERVER_NAME_RE, RESERVED_DISK_NAMES) so that a plan with tpgen_command = null refuses them too;
# tests/terraform/test_cdn_nodes_names.py fails when a copy no longer matches tpgen's.
locals {
  host_name_re        = "^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$"
  disk_name_re        = "^[a-z][a-z0-9_]{0,31}$"
  server_name_re      = "^(\\*\\.)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$"
  reserved_disk_names = ["default", "hostnames", "include", "volatile"]

  # What ssh takes as a host (the inventory's ansible_host; one rule for nodes[*].address and
  # addresses): a DNS name (any case), an IP address (with cidrhost), or an address of fe80::/10
  # with the interface it is on after '%', as ssh and getaddrinfo write it. The interface is a
  # name as Linux allows it (at most 15 characters, no '/', ':', '%' or space, never . or ..),
  # narrowed to [A-Za-z0-9_.-] without a leading '.', so nothing in it is shell, YAML or template.
  dns_name_re         = "^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$"
  ip_re               = "^[0-9A-Fa-f:.]+$"
  link_local_zoned_re = "^[Ff][Ee][89ABab][0-9A-Fa-f]:[0-9A-Fa-f:.]*%[A-Za-z0-9_-][A-Za-z0-9_.-]{0,14}$"
}

variable "nodes" {
  description = <<-EOT
    Storage nodes, one object per machine. Each becomes one host of the Ansible group
    `storage_nodes` whose `tpgen_spec` host variable is the node's tpgen spec (docs/spec.md).
    Give the data disks either as `disks` (explicit devices: on-prem, MAAS, OVH) or as
    `disk_set` (N identical disks that the host enumerates itself, e.g. AWS instance store);
    never both. `address` may be left out when the caller passes it in `addresses` instead.
  EOT
  type = list(object({
    name         = string
    address      = optional(string)
    ansible_user = optional(string)
    cores        = optional(number)
    memory       = optional(string)
    workload = object({
      type            = string
      upstreams       = optional(list(string), [])
      avg_object_size = optional(string)
      cache_key       = optional(string)
      inactive        = optional(string)
      resolver        = optional(list(string), [])
    })
    disks = optional(list(object({
      name        = optional(string)
      device      = string
      mount       = optional(string)
      size        = string
      media       = string
      state       = optional(string, "active")
      weight      = optional(number)
      filesystem  = optional(string)
      thread_pool = optional(bool)
    })), [])
    disk_set = optional(object({
      count         = number
      size          = string
      media         = string
      device_scheme = optional(string)
      first_index   = optional(number, 1)
      filesystem    = optional(string)
    }))
    listen = optional(list(object({
      address = optional(string)
      port    = optional(number)
      tls     = optional(bool)
      http2   = optional(bool)
      http3   = optional(bool)
    })))
    tls = optional(object({
      certificates = list(object({
        cert         = string
        key          = string
        server_names = optional(list(string))
      }))
      redirect_http       = optional(bool)
      ticket_keys         = optional(list(string))
      ocsp_stapling       = optional(string)
      trusted_certificate = optional(string)
    }))
    nginx = optional(object({
      version = optional(string)
      http_v3 = optional(bool)
    }))
    status = optional(object({
      address = optional(string)
      port    = optional(number)
    }))
  }))

  # Structure only, and names. What the values mean (media, devices, mounts, sizes, upstreams,
  # ports, ...) is tpgen's to judge: terraform_data.tpgen_validate runs `tpgen validate` on every
  # rendered spec (main.tf), so there is one rule and one message. Names are the exception: they
  # reach the outputs on their own (host names, the inventory) even when tpgen_command = null
  # skips that check, so tpgen's name rules are copied here, and a test holds the copies to them.
  validation {
    condition     = length(var.nodes) > 0
    error_message = "nodes is empty: add at least one node object."
  }

  validation {
    condition     = length(distinct([for n in var.nodes : n.name])) == length(var.nodes)
    error_message = "Node names must be unique: rename the duplicated node (names are also the Ansible inventory hostnames)."
  }

  validation {
    condition = alltrue([
      for n in var.nodes : length(n.disks) > 0 || try(n.disk_set.count, 0) >= 1
    ])
    error_message = "Every node needs at least one data disk: give a non-empty `disks` list or a `disk_set` with count >= 1."
  }

  validation {
    condition     = alltrue([for n in var.nodes : !(length(n.disks) > 0 && n.disk_set != null)])
    error_message = "A node may give `disks` or `disk_set`, not both: keep `disks` when you know the devices, `disk_set` when the host enumerates them."
  }

  validation {
    # disk_set is this module's input, not the spec's: these are the limits of the device names
    # it generates (local.disks), which no spec rule could see.
    condition = alltrue([
      for n in var.nodes : n.disk_set == null || try(
        n.disk_set.count == floor(n.disk_set.count) && n.disk_set.count >= 1 &&
        n.disk_set.first_index == floor(n.disk_set.first_index) &&
        contains(["nvme", "sd"], coalesce(n.disk_set.device_scheme, n.disk_set.media == "nvme" ? "nvme" : "sd")) &&
        n.disk_set.first_index >= (coalesce(n.disk_set.device_scheme, n.disk_set.media == "nvme" ? "nvme" : "sd") == "nvme" ? 0 : 1) &&
        n.disk_set.first_index + n.disk_set.count <= (coalesce(n.disk_set.device_scheme, n.disk_set.media == "nvme" ? "nvme" : "sd") == "nvme" ? 128 : 26),
        false
      )
    ])
    error_message = "disk_set: count must be a whole number >= 1, first_index a whole number, device_scheme nvme or sd, and the devices must fit the scheme (sd: /dev/sdb../dev/sdz with first_index >= 1; nvme: first_index + count <= 128)."
  }

  validation {
    # Not part of the spec: the user name goes into the inventory and the user data, which
    # disables root logins.
    condition = alltrue([
      for n in var.nodes : n.ansible_user == null || (can(regex("^[a-z_][a-z0-9_-]{0,31}$", n.ansible_user)) && n.ansible_user != "root")
    ])
    error_message = "nodes[*].ansible_user must be a plain, non-root Linux user name ([a-z_][a-z0-9_-]{0,31}); root logins are disabled by the user data."
  }

  validation {
    # tpgen's rule for node.name, checked here too: with tpgen_command = null nothing else would
    # refuse a name before it becomes the host name in the user data and the inventory. It also
    # keeps out what Ansible reads in an inventory host name (':' a port, '[' a range).
    condition = alltrue([
      for n in var.nodes : length(n.name) <= 253 && can(regex(local.host_name_re, n.name))
    ])
    error_message = "nodes[*].name must be a lowercase host name (labels of a-z, 0-9 and '-', joined by '.', each at most 63 characters, 253 in all), tpgen's rule for node.name: write e.g. edge-ams-01."
  }

  validation {
    # Ansible reads these host names as its own groups (storage_nodes is no host name already).
    condition     = alltrue([for n in var.nodes : !contains(["all", "ungrouped"], n.name)])
    error_message = "Node names must not be all or ungrouped: Ansible reads such an inventory host name as a group. Name the node by its host name, e.g. edge-ams-01."
  }

  validation {
    # tpgen's rule for disks[*].name (a key of nginx's map block), for the same reason as the
    # node names: the disk names disk_set generates (d1, d2, ...) always pass.
    condition = alltrue(flatten([
      for n in var.nodes : [
        for d in n.disks : d.name == null ? true : can(regex(local.disk_name_re, d.name)) && !contains(local.reserved_disk_names, d.name)
      ]
    ]))
    error_message = "nodes[*].disks[*].name must be a disk name (a lowercase letter, then up to 31 of a-z, 0-9 and '_'), not default, hostnames, include or volatile (words of nginx's map block), tpgen's rule for disks[*].name: write e.g. d1."
  }

  validation {
    # tpgen's rule for tls.certificates[*].server_names, for the same reason as the node names.
    condition = alltrue(flatten([
      for n in var.nodes : [
        for c in try(n.tls.certificates, []) : [
          for s in(c.server_names == null ? [] : c.server_names) : length(s) <= 253 && can(regex(local.server_name_re, s))
        ]
      ]
    ]))
    error_message = "nodes[*].tls.certificates[*].server_names entries must be lowercase host names, or one after '*.' (labels of a-z, 0-9 and '-', joined by '.', 253 characters in all), tpgen's rule for server_names: write e.g. cdn.example.com or *.example.com."
  }

  validation {
    # Not part of the spec: the address is the inventory's ansible_host, which Ansible hands to
    # ssh and evaluates as a template.
    condition = alltrue([
      for n in var.nodes : n.address == null ? true : (
        (length(n.address) <= 253 && can(regex(local.dns_name_re, n.address))) ||
        (can(regex(local.ip_re, n.address)) && can(cidrhost("${n.address}/128", 0))) ||
        (can(regex(local.link_local_zoned_re, n.address)) && can(cidrhost("${split("%", n.address)[0]}/128", 0)))
      )
    ])
    error_message = "nodes[*].address must be an IP address or a DNS host name, e.g. 192.0.2.10, 2001:db8::10, edge-01.example.net, or a link-local IPv6 address with its interface, e.g. fe80::1%eth0: it is the inventory's ansible_host, which Ansible connects to."
  }

  validation {
    # Ansible evaluates '{{', '{%' and '{#' in inventory values as templates on the controller (a
    # lookup('pipe', ...) runs a command), before any tpgen check on the host. jsonencode writes
    # no such pair itself, so this looks at every string of every node.
    condition     = length(regexall("\\{[{%#]", jsonencode(var.nodes))) == 0
    error_message = "A string in nodes holds '{{', '{%' or '{#': Ansible would evaluate it as a template on the controller when it reads the inventory. Remove it (no spec field takes one)."
  }
}

variable "addresses" {
  description = <<-EOT
    Management addresses by node name, for callers that only learn them after the machine exists
    (the provider adapters pass the instance IPs here). Overrides `nodes[*].address`. Kept apart
    from `nodes` so that `user_data`, which the machines need before they exist, does not depend
    on the machines' own addresses.
  EOT
  type        = map(string)
  default     = {}
  nullable    = false

  validation {
    # The same rule as nodes[*].address: these become ansible_host.
    condition = alltrue([
      for a in values(var.addresses) : a == null ? true : (
        (length(a) <= 253 && can(regex(local.dns_name_re, a))) ||
        (can(regex(local.ip_re, a)) && can(cidrhost("${a}/128", 0))) ||
        (can(regex(local.link_local_zoned_re, a)) && can(cidrhost("${split("%", a)[0]}/128", 0)))
      )
    ])
    error_message = "addresses values must be IP addresses or DNS host names, e.g. 192.0.2.10, 2001:db8::10, edge-01.example.net, or link-local IPv6 addresses with their interface, e.g. fe80::1%eth0: each is the inventory's ansible_host, which Ansible connects to."
  }
}

variable "ansible_user" {
  description = "Remote user that Ansible logs in as; cloud-init creates it with the SSH keys below and password-less sudo."
  type        = string
  default     = "ansible"
  nullable    = false

  validation {
    condition     = can(regex("^[a-z_][a-z0-9_-]{0,31}$", var.ansible_user)) && var.ansible_user != "root"
    error_message = "ansible_user must be a plain, non-root Linux user name ([a-z_][a-z0-9_-]{0,31}); root logins are disabled by the user data."
  }
}

variable "ssh_authorized_keys" {
  description = "OpenSSH public keys (one line each) allowed to log in as ansible_user."
  type        = list(string)
  nullable    = false

  validation {
    condition     = length(var.ssh_authorized_keys) > 0
    error_message = "ssh_authorized_keys is empty: give at least one public key, or Ansible cannot log in."
  }

  validation {
    condition = alltrue([
      for k in var.ssh_authorized_keys :
      can(regex("^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp(256|384|521)|sk-ssh-ed25519@openssh\\.com|sk-ecdsa-sha2-nistp256@openssh\\.com) [A-Za-z0-9+/]+={0,3}( [^\\x00-\\x1f\\x7f-\\x9f'\"]*)?$", k))
    ])
    # Control characters in a comment: the shell drops a NUL from the bootstrap script's key lines.
    error_message = "Each SSH key must be one OpenSSH public-key line (\"ssh-ed25519 AAAA... comment\") without quotes or control characters; pass the .pub file's content, never a private key."
  }
}

variable "bootstrap_packages" {
  description = "Distribution packages the user data installs so that Ansible can run (python3 is what Ansible needs)."
  type        = list(string)
  default     = ["python3", "sudo"]
  nullable    = false

  validation {
    condition     = alltrue([for p in var.bootstrap_packages : can(regex("^[a-z0-9][a-z0-9+.-]*$", p))])
    error_message = "bootstrap_packages entries must be plain package names (e.g. python3)."
  }
}

variable "tuning" {
  description = <<-EOT
    Optional per-node `tuning` overrides for the tpgen spec, keyed by node name, e.g.
    { "edge-ams-01" = { threads_per_disk = 32 } }. Passed through unchanged (tpgen validates the keys).
    A separate untyped map because nodes may override different keys, which one typed list
    of node objects cannot hold.
  EOT
  type        = any
  default     = {}
  nullable    = false

  validation {
    condition = can(keys(var.tuning)) && alltrue([
      for k, v in var.tuning : contains([for n in var.nodes : n.name], k) && can(keys(v))
    ])
    error_message = "tuning must map node names from `nodes` to objects of overrides, e.g. { \"edge-ams-01\" = { threads_per_disk = 32 } }: fix the key that names no node."
  }

  validation {
    # tuning reaches the inventory in tpgen_spec: the same reason as for nodes.
    condition     = length(regexall("\\{[{%#]", jsonencode(var.tuning))) == 0
    error_message = "A string in tuning holds '{{', '{%' or '{#': Ansible would evaluate it as a template on the controller when it reads the inventory. Remove it (no spec field takes one)."
  }
}

variable "tpgen_command" {
  description = <<-EOT
    How to run tpgen on the machine that runs `terraform apply` (a path, or words such as
    "python3 -m tpgen"). Apply runs `<tpgen_command> validate` on every node's spec and fails
    with tpgen's message when it refuses one. null skips the check: the Ansible role then
    refuses a bad spec on first contact, after the machines exist.
  EOT
  type        = string
  default     = "tpgen"

  validation {
    # A blank command would run `validate <node>.yaml` as the program.
    condition     = var.tpgen_command == null ? true : trimspace(var.tpgen_command) != ""
    error_message = "tpgen_command is blank: give the command that runs tpgen (a path such as /opt/tpgen/.venv/bin/tpgen, or words such as \"python3 -m tpgen\"), or null to skip the check."
  }
}

variable "user_data_max_bytes" {
  description = <<-EOT
    The longest user data, in bytes, that the machines' cloud takes (the AWS adapter passes
    AWS's 16384). The plan refuses a node whose rendered user data is longer, naming it, instead
    of the cloud's API refusing the machine at apply. null: no limit.
  EOT
  type        = number
  default     = null

  validation {
    condition     = var.user_data_max_bytes == null ? true : var.user_data_max_bytes == floor(var.user_data_max_bytes) && var.user_data_max_bytes >= 1
    error_message = "user_data_max_bytes must be a whole number of bytes >= 1 (AWS: 16384), or null for no limit."
  }
}
