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
    listen = optional(object({
      address = optional(string)
      port    = optional(number)
    }))
    status = optional(object({
      address = optional(string)
      port    = optional(number)
    }))
  }))

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
      for n in var.nodes : can(regex("^[a-z0-9][a-z0-9.-]*$", n.name)) && length(n.name) <= 253 &&
      alltrue([for label in split(".", n.name) : length(label) >= 1 && length(label) <= 63])
    ])
    error_message = "Each node name must be hostname-like: lower-case letters, digits, '.' and '-', starting with a letter or digit, at most 63 characters per dot-separated label."
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
    condition = alltrue(flatten([
      for n in var.nodes : concat(
        [for d in n.disks : contains(["hdd", "ssd", "nvme"], d.media)],
        [contains(["hdd", "ssd", "nvme"], try(n.disk_set.media, "hdd"))],
      )
    ]))
    error_message = "Unknown disk media: set `media` to one of hdd, ssd, nvme."
  }

  validation {
    condition     = alltrue([for n in var.nodes : contains(["cache", "origin", "vod"], n.workload.type)])
    error_message = "Unknown workload type: set workload.type to one of cache, origin, vod."
  }

  validation {
    condition = alltrue([
      for n in var.nodes : n.workload.type != "cache" || length(n.workload.upstreams) > 0
    ])
    error_message = "A cache node needs at least one upstream: set workload.upstreams, e.g. [\"origin-a.example.net:8080\"]."
  }

  validation {
    condition = alltrue([
      for n in var.nodes : n.workload.type == "cache" || (
        length(n.workload.upstreams) == 0 && n.workload.cache_key == null && n.workload.inactive == null
      )
    ])
    error_message = "workload.upstreams, cache_key and inactive only apply to workload type cache: remove them from origin and vod nodes."
  }

  validation {
    condition = alltrue(flatten([
      for n in var.nodes : [
        for u in n.workload.upstreams :
        can(regex("^(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?):[0-9]{1,5}$", u))
      ]
    ]))
    error_message = "Each upstream must be host:port (e.g. origin-a.example.net:8080 or [2001:db8::1]:8080)."
  }

  validation {
    condition = alltrue(flatten([
      for n in var.nodes : concat(
        [for s in compact([n.memory, n.workload.avg_object_size, try(n.disk_set.size, null)]) :
        can(regex("^[0-9]+(\\.[0-9]+)?(k|[KMGTP](B|iB)?)?$", s))],
        [for d in n.disks : can(regex("^[0-9]+(\\.[0-9]+)?(k|[KMGTP](B|iB)?)?$", d.size))],
      )
    ]))
    error_message = "Sizes (memory, avg_object_size, disk size) must be a number with an optional unit: k, K, KB, KiB, M, MB, MiB, ... P, PB, PiB (e.g. \"4TB\", \"3.2TB\", \"48GiB\", \"1MiB\")."
  }

  validation {
    condition = alltrue([
      for n in var.nodes : n.cores == null || try(n.cores == floor(n.cores) && n.cores >= 1 && n.cores <= 1024, false)
    ])
    error_message = "cores must be a whole number from 1 to 1024, or left out so the Ansible role takes it from facts."
  }

  validation {
    condition = alltrue([
      for n in var.nodes : n.workload.inactive == null || can(regex("^([0-9]+(ms|s|m|h|d|w|M|y))+$", n.workload.inactive))
    ])
    error_message = "workload.inactive must be an nginx time such as 7d, 12h or 1h30m."
  }

  validation {
    condition = alltrue(flatten([
      for n in var.nodes : [for d in n.disks : contains(["active", "draining", "failed"], d.state)]
    ]))
    error_message = "Unknown disk state: set `state` to active, draining (no new objects, still readable) or failed (gone)."
  }

  validation {
    condition = alltrue(flatten([
      for n in var.nodes : concat(
        [for d in n.disks : contains(["xfs", "ext4"], coalesce(d.filesystem, "xfs"))],
        [contains(["xfs", "ext4"], coalesce(try(n.disk_set.filesystem, null), "xfs"))],
      )
    ]))
    error_message = "Unknown filesystem: set `filesystem` to xfs or ext4, or leave it out (xfs)."
  }

  validation {
    condition = alltrue(flatten([
      for n in var.nodes : [
        for d in n.disks : d.name == null || can(regex("^[a-z][a-z0-9_]{0,31}$", d.name))
      ]
    ]))
    error_message = "A disk name must match [a-z][a-z0-9_]{0,31} (e.g. d1); leave it out to get d1..dN by position."
  }

  validation {
    condition = alltrue([
      for n in var.nodes : length(distinct([
        for i, d in n.disks : coalesce(d.name, "d${i + 1}")
      ])) == length(n.disks)
    ])
    error_message = "Disk names must be unique within a node: a disk without a name is called d<position>, so give explicit names when you mix named and unnamed disks."
  }

  validation {
    condition = alltrue([
      for n in var.nodes : alltrue([for d in n.disks : can(regex("^/dev/[A-Za-z0-9/_.:-]+$", d.device))]) &&
      length(distinct([for d in n.disks : d.device])) == length(n.disks)
    ])
    error_message = "Disk devices must be paths under /dev/ and unique within a node: fix the repeated or relative device."
  }

  validation {
    condition = alltrue(flatten([
      for n in var.nodes : [
        for d in n.disks : d.mount == null || can(regex("^/[A-Za-z0-9/_.-]*[A-Za-z0-9_.-]$", d.mount))
      ]
    ]))
    error_message = "A disk mount must be an absolute path without a trailing slash (e.g. /srv/cache/d1), or left out for the default."
  }

  validation {
    # Checks the mounts the disks will really get, defaults included (see local.disks).
    condition = alltrue([
      for n in var.nodes : alltrue(flatten([
        for a in [for i, d in n.disks : coalesce(d.mount, format("%s/%s", n.workload.type == "cache" ? "/srv/cache" : "/srv/data", coalesce(d.name, "d${i + 1}")))] : [
          for j, b in [for i, d in n.disks : coalesce(d.mount, format("%s/%s", n.workload.type == "cache" ? "/srv/cache" : "/srv/data", coalesce(d.name, "d${i + 1}")))] :
          !startswith(b, "${a}/")
        ]
        ])) && length(distinct([
        for i, d in n.disks : coalesce(d.mount, format("%s/%s", n.workload.type == "cache" ? "/srv/cache" : "/srv/data", coalesce(d.name, "d${i + 1}")))
      ])) == length(n.disks)
    ])
    error_message = "Disk mounts must be unique and not nested inside another disk's mount (a disk without `mount` gets /srv/cache/<name> or /srv/data/<name>): give each disk its own directory."
  }

  validation {
    condition = alltrue([
      for n in var.nodes : n.disk_set == null || try(
        n.disk_set.count == floor(n.disk_set.count) && n.disk_set.count >= 1 &&
        contains(["nvme", "sd"], coalesce(n.disk_set.device_scheme, n.disk_set.media == "nvme" ? "nvme" : "sd")) &&
        n.disk_set.first_index >= (coalesce(n.disk_set.device_scheme, n.disk_set.media == "nvme" ? "nvme" : "sd") == "nvme" ? 0 : 1) &&
        n.disk_set.first_index + n.disk_set.count <= (coalesce(n.disk_set.device_scheme, n.disk_set.media == "nvme" ? "nvme" : "sd") == "nvme" ? 128 : 26),
        false
      )
    ])
    error_message = "disk_set: count must be a whole number >= 1, device_scheme nvme or sd, and the devices must fit the scheme (sd: /dev/sdb../dev/sdz with first_index >= 1; nvme: first_index + count <= 128)."
  }

  validation {
    condition = alltrue([
      for n in var.nodes : n.ansible_user == null || can(regex("^[a-z_][a-z0-9_-]{0,31}$", n.ansible_user))
    ])
    error_message = "ansible_user must be a plain Linux user name ([a-z_][a-z0-9_-]{0,31})."
  }

  validation {
    condition = alltrue(flatten([
      for n in var.nodes : [
        for p in compact([try(tostring(n.listen.port), null), try(tostring(n.status.port), null)]) :
        tonumber(p) >= 1 && tonumber(p) <= 65535 && tonumber(p) == floor(tonumber(p))
      ]
    ]))
    error_message = "listen.port and status.port must be whole numbers from 1 to 65535."
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
      can(regex("^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp(256|384|521)|sk-ssh-ed25519@openssh\\.com|sk-ecdsa-sha2-nistp256@openssh\\.com) [A-Za-z0-9+/]+={0,3}( [^\\r\\n'\"]*)?$", k))
    ])
    error_message = "Each SSH key must be one OpenSSH public-key line (\"ssh-ed25519 AAAA... comment\") without quotes; pass the .pub file's content, never a private key."
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
}
