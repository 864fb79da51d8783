variable "nodes" {
  description = <<-EOT
    OVHcloud dedicated servers you already rent (by service_name), one object each, with the
    cdn_nodes node fields. The OS goes on the first `os_disks` disks of the disk group
    `os_disk_group_id`; list the data disks, which the installer leaves untouched, in `disks`.
  EOT
  type = list(object({
    name             = string
    service_name     = string
    os_disk_group_id = optional(number)
    ansible_user     = optional(string)
    cores            = optional(number)
    memory           = optional(string)
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

  validation {
    condition     = alltrue([for n in var.nodes : can(regex("^ns[0-9]+\\.ip-[0-9-]+\\.[a-z]+$|^[a-z0-9][a-z0-9.-]+$", n.service_name))])
    error_message = "service_name must be the server's OVHcloud service name, e.g. ns1234567.ip-203-0-113.eu."
  }
}

variable "os" {
  description = "OVHcloud OS template (e.g. debian12_64, ubuntu2404-server_64), or byolinux_64 with image_url for your own image."
  type        = string
  default     = "debian12_64"
}

variable "image_url" {
  description = "Image to install when os is byolinux_64 (cloud-init then reads the user data from the config drive)."
  type        = string
  default     = null
}

variable "os_disks" {
  description = "How many disks of the OS disk group carry the (software RAID 1) system partitions; the others stay free for tpgen."
  type        = number
  default     = 2

  validation {
    condition     = var.os_disks >= 1 && var.os_disks == floor(var.os_disks)
    error_message = "os_disks must be a whole number >= 1 (2 for a mirrored system)."
  }
}

variable "os_partitions" {
  description = "System partitions (size in MiB, 0 = rest of the disk) on the OS disks."
  type = list(object({
    mount_point = string
    file_system = string
    size        = number
    raid_level  = optional(number, 1)
  }))
  default = [
    { mount_point = "/boot", file_system = "ext4", size = 1024 },
    { mount_point = "/", file_system = "ext4", size = 0 },
  ]

  validation {
    condition     = length([for p in var.os_partitions : p if p.mount_point == "/"]) == 1
    error_message = "os_partitions must contain exactly one \"/\" partition."
  }
}

variable "ssh_authorized_keys" {
  description = "OpenSSH public keys allowed to log in as ansible_user (written by the post-install script or user data)."
  type        = list(string)
}

variable "ansible_user" {
  description = "Remote user Ansible logs in as; created on first boot."
  type        = string
  default     = "ansible"
}

variable "tpgen_command" {
  description = "How to run tpgen where `terraform apply` runs: apply checks every node's spec with `<tpgen_command> validate` before creating the machines (see modules/cdn_nodes). null skips the check."
  type        = string
  default     = "tpgen"
}
