output "inventory_yaml" {
  description = "Ansible inventory of the two nodes."
  value       = module.cdn_nodes.inventory_yaml
}
