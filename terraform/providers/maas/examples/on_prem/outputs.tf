output "inventory_yaml" {
  description = "Ansible inventory for inventories/onprem/hosts.yml."
  value       = module.storage.inventory_yaml
}
