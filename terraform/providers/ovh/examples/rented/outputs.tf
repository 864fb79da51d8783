output "inventory_yaml" {
  description = "Ansible inventory for inventories/ovh/hosts.yml."
  value       = module.storage.inventory_yaml
}
