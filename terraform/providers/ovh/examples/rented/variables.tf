variable "ssh_authorized_keys" {
  description = "Public keys of the Ansible controller."
  type        = list(string)
  default     = ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBx7mDWWlfKDD3qBbkJ+4PqS0mkWMGzdAv9kXpbX5l0c ansible@controller"]
}
