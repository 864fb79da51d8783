variable "nodes" {
  description = <<-EOT
    The simulated storage nodes, in the input format of modules/cdn_nodes (leave `address` out:
    each stand-in host gets one from address_cidr). The default is a small mixed fleet whose
    specs all pass `tpgen validate`.
  EOT
  # Same type as modules/cdn_nodes `nodes` (tests/terraform checks that the two stay identical).
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
  default = [
    {
      name     = "edge-sim-01"
      cores    = 8
      memory   = "32GiB"
      workload = { type = "cache", upstreams = ["origin-sim.example.net:8080"], avg_object_size = "1MiB", inactive = "7d" }
      disks = [
        { device = "/dev/sdb", size = "4TB", media = "hdd" },
        { device = "/dev/sdc", size = "4TB", media = "hdd" },
        { device = "/dev/sdd", size = "4TB", media = "hdd", state = "draining" },
      ]
    },
    {
      name     = "edge-sim-02"
      cores    = 16
      memory   = "64GiB"
      workload = { type = "cache", upstreams = ["origin-sim.example.net:8080"], avg_object_size = "512KiB" }
      disk_set = { count = 4, size = "14TB", media = "hdd", device_scheme = "nvme" }
    },
    {
      name     = "vod-sim-01"
      cores    = 24
      memory   = "96GiB"
      workload = { type = "vod", avg_object_size = "8MiB" }
      disk_set = { count = 2, size = "3750GB", media = "nvme" }
    },
  ]
  nullable = false
}

variable "address_cidr" {
  description = "Range the stand-in hosts take their addresses from (host 10, 11, ... in node-name order). Loopback only, so that nothing ever sends traffic to a real network."
  type        = string
  default     = "127.0.10.0/24"
  nullable    = false

  validation {
    # Every part in try(): a malformed range ("127.0.0.0/8 ") gets this message, not a function's.
    condition     = startswith(try(cidrhost(var.address_cidr, 0), ""), "127.") && try(tonumber(split("/", var.address_cidr)[1]) >= 8, false)
    error_message = "address_cidr must be a range inside 127.0.0.0/8 (e.g. 127.0.10.0/24): the simulated hosts must stay on loopback."
  }

  validation {
    # The hosts take addresses 10, 11, ... of the range (main.tf).
    condition     = !can(cidrhost(var.address_cidr, 0)) || can(cidrhost(var.address_cidr, 9 + length(var.nodes)))
    error_message = "address_cidr is too small for the nodes: the stand-in hosts take its addresses 10, 11, ..., one per node; give a larger range such as 127.0.10.0/24."
  }
}

variable "ansible_user" {
  description = "Remote user written into the inventory and the simulated user data."
  type        = string
  default     = "ansible"
  nullable    = false
}

variable "ssh_authorized_keys" {
  description = "Public keys put into the simulated user data. The default is a throw-away key whose private half was never kept."
  type        = list(string)
  default     = ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBx7mDWWlfKDD3qBbkJ+4PqS0mkWMGzdAv9kXpbX5l0c tpgen-sim"]
  nullable    = false
}

variable "tpgen_command" {
  description = "How to run tpgen where `terraform apply` runs: apply checks every node's spec with `<tpgen_command> validate` before creating the machines (see modules/cdn_nodes). null skips the check."
  type        = string
  default     = "tpgen"
}
