output "inventory_yaml" {
  description = "Ansible inventory for the simulated fleet (group storage_nodes). Hand-off: `terraform output -raw inventory_yaml > inventories/sim/hosts.yml`."
  value       = module.cdn_nodes.inventory_yaml
}

output "hosts" {
  description = "Address of each stand-in host, by node name."
  value       = { for name, host in terraform_data.host : name => host.output.address }
}

output "user_data" {
  description = "The cloud-init user data each stand-in host was given, by node name."
  value       = module.cdn_nodes.user_data
}
