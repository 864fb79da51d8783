variable "region" {
  description = "AWS region."
  type        = string
  default     = "us-east-1"
}

variable "vpc_id" {
  description = "Existing VPC for the nodes."
  type        = string
  default     = "vpc-0123456789abcdef0"
}

variable "subnet_id" {
  description = "Existing private subnet for the nodes."
  type        = string
  default     = "subnet-0123456789abcdef0"
}

variable "ami_id" {
  description = "Debian 12 or Ubuntu 24.04 amd64 AMI of the region."
  type        = string
  default     = "ami-0123456789abcdef0"
}

variable "ssh_authorized_keys" {
  description = "Public keys of the Ansible controller."
  type        = list(string)
  default     = ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBx7mDWWlfKDD3qBbkJ+4PqS0mkWMGzdAv9kXpbX5l0c ansible@controller"]
}
