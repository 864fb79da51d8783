output "inventory_yaml" {
  description = "Ansible inventory (group storage_nodes, tpgen_spec per host); write it to inventories/<env>/hosts.yml."
  value       = module.cdn_nodes.inventory_yaml
}

output "specs" {
  description = "The tpgen spec of each node, by name."
  value       = module.cdn_nodes.specs
}

output "servers" {
  description = "Service name and IPv4 address by node name."
  value = {
    for name, server in ovh_dedicated_server.node : name => {
      service_name = server.service_name
      ip           = server.ip
    }
  }
}
