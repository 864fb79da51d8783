variable "maas_url" {
  description = "MAAS API URL."
  type        = string
  default     = "http://maas.example.internal:5240/MAAS"
}

variable "maas_api_key" {
  description = "MAAS API key (consumer:token:secret); pass it with TF_VAR_maas_api_key."
  type        = string
  sensitive   = true
  default     = null
}

variable "ssh_authorized_keys" {
  description = "Public keys of the Ansible controller."
  type        = list(string)
  default     = ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBx7mDWWlfKDD3qBbkJ+4PqS0mkWMGzdAv9kXpbX5l0c ansible@controller"]
}
