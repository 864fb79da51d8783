output "inventory_yaml" {
  description = "Ansible inventory (group storage_nodes, tpgen_spec per host); write it to inventories/<env>/hosts.yml."
  value       = module.cdn_nodes.inventory_yaml
}

output "specs" {
  description = "The tpgen spec of each node, by name."
  value       = module.cdn_nodes.specs
}

output "machines" {
  description = "MAAS system id, FQDN and addresses by node name."
  value = {
    for name, machine in maas_instance.node : name => {
      id           = machine.id
      fqdn         = machine.fqdn
      ip_addresses = machine.ip_addresses
    }
  }
}
