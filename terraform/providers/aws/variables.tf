variable "nodes" {
  description = <<-EOT
    Dense storage instances to run, one object each. The data disks are the instance type's
    instance-store volumes: AWS attaches them itself and the host enumerates them, so the
    adapter passes their count and media (from the instance type) to cdn_nodes, never devices.
    cores and memory default to the instance type's vCPUs and RAM.
  EOT
  type = list(object({
    name          = string
    instance_type = string
    subnet_id     = optional(string)
    ansible_user  = optional(string)
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
    condition     = alltrue([for n in var.nodes : contains(["d3en.xlarge", "d3en.2xlarge", "d3en.4xlarge", "d3en.6xlarge", "d3en.8xlarge", "d3en.12xlarge", "i4i.metal"], n.instance_type)])
    error_message = "instance_type must be a dense-storage type this adapter knows the instance store of: d3en.xlarge .. d3en.12xlarge (HDD) or i4i.metal (NVMe). Add the type to local.instance_types to support another."
  }
}

variable "vpc_id" {
  description = "VPC of the storage nodes' security group."
  type        = string
}

variable "subnet_id" {
  description = "Subnet for nodes that do not name their own subnet_id."
  type        = string
}

variable "ami_id" {
  description = "AMI to boot (a cloud-init enabled Linux, e.g. Debian 12 or Ubuntu 24.04 for amd64)."
  type        = string

  validation {
    condition     = can(regex("^ami-[0-9a-f]{8,17}$", var.ami_id))
    error_message = "ami_id must be an AMI id such as ami-0123456789abcdef0."
  }
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

variable "ssh_allowed_cidrs" {
  description = "IPv4 ranges allowed to reach SSH (the Ansible controller, a bastion). Never the whole internet."
  type        = list(string)

  validation {
    condition     = length(var.ssh_allowed_cidrs) > 0 && alltrue([for c in var.ssh_allowed_cidrs : can(cidrhost(c, 0)) && !endswith(c, "/0")])
    error_message = "ssh_allowed_cidrs must list the controller's or bastion's ranges (e.g. 198.51.100.0/28); a /0 such as 0.0.0.0/0 would open SSH to the internet."
  }
}

variable "http_allowed_cidrs" {
  description = "IPv4 ranges allowed to reach the nodes' listen port (clients or the load balancer in front)."
  type        = list(string)
  default     = ["0.0.0.0/0"]

  validation {
    condition     = alltrue([for c in var.http_allowed_cidrs : can(cidrhost(c, 0))])
    error_message = "http_allowed_cidrs must be IPv4 CIDR ranges such as 0.0.0.0/0 or 203.0.113.0/24."
  }
}

variable "associate_public_ip" {
  description = "Give the instances a public IPv4 address. Off by default: reach them through the VPC."
  type        = bool
  default     = false
}

variable "use_public_address_for_ansible" {
  description = "Write the public IP (instead of the private IP) as ansible_host; needs associate_public_ip."
  type        = bool
  default     = false
}

variable "iam_instance_profile" {
  description = "Instance profile to attach (e.g. for SSM or CloudWatch agents); null for none."
  type        = string
  default     = null
}

variable "root_volume_size" {
  description = "Size in GiB of the encrypted gp3 root volume (the OS only: data lives on the instance store)."
  type        = number
  default     = 40

  validation {
    condition     = var.root_volume_size >= 8 && var.root_volume_size <= 16384
    error_message = "root_volume_size must be between 8 and 16384 GiB."
  }
}

variable "tags" {
  description = "Tags added to every resource."
  type        = map(string)
  default     = {}
}

variable "tpgen_command" {
  description = "How to run tpgen where `terraform apply` runs: apply checks every node's spec with `<tpgen_command> validate` before creating the machines (see modules/cdn_nodes). null skips the check."
  type        = string
  default     = "tpgen"
}
