variable "nodes" {
  description = <<-EOT
    Machines already commissioned in MAAS, one object each, with the cdn_nodes node fields.
    A machine is picked by system_id when given, else by its MAAS hostname (default: name).
    Data disks are listed with their devices (known from commissioning). `address` overrides
    the address MAAS reports (the lowest of the machine's IPs).
  EOT
  type = list(object({
    name          = string
    address       = optional(string)
    ansible_user  = optional(string)
    maas_hostname = optional(string)
    system_id     = optional(string)
    zone          = optional(string)
    pool          = optional(string)
    tags          = optional(list(string), [])
    cores         = optional(number)
    memory        = optional(string)
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
}

variable "distro_series" {
  description = "Ubuntu series MAAS deploys (cloud-init runs the user data on first boot)."
  type        = string
  default     = "noble"

  validation {
    condition     = can(regex("^[a-z]+$", var.distro_series))
    error_message = "distro_series must be an Ubuntu series name such as noble or jammy."
  }
}

variable "hwe_kernel" {
  description = "Hardware enablement kernel to deploy (e.g. hwe-24.04); null for the series default."
  type        = string
  default     = null
}

variable "secure_erase" {
  description = "On release, use the drives' secure-erase feature where available (the erase itself is always on)."
  type        = bool
  default     = true
}

variable "quick_erase" {
  description = "On release, only wipe the start and end of each drive when secure erase is unavailable. Faster, not secure."
  type        = bool
  default     = false
}

variable "ssh_authorized_keys" {
  description = "OpenSSH public keys allowed to log in as ansible_user (written by the user data)."
  type        = list(string)
}

variable "ansible_user" {
  description = "Remote user Ansible logs in as; created by the user data."
  type        = string
  default     = "ansible"
}

variable "tpgen_command" {
  description = "How to run tpgen where `terraform apply` runs: apply checks every node's spec with `<tpgen_command> validate` before creating the machines (see modules/cdn_nodes). null skips the check."
  type        = string
  default     = "tpgen"
}
