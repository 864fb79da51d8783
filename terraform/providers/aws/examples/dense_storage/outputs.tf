output "inventory_yaml" {
  description = "Ansible inventory for inventories/aws/hosts.yml."
  value       = module.storage.inventory_yaml
}
