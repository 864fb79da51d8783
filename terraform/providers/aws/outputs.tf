output "inventory_yaml" {
  description = "Ansible inventory (group storage_nodes, tpgen_spec per host); write it to inventories/<env>/hosts.yml."
  value       = module.cdn_nodes.inventory_yaml
}

output "specs" {
  description = "The tpgen spec of each node, by name."
  value       = module.cdn_nodes.specs
}

output "instances" {
  description = "Instance id and addresses by node name."
  value = {
    for name, instance in aws_instance.node : name => {
      id         = instance.id
      private_ip = instance.private_ip
      public_ip  = instance.public_ip
    }
  }
}

output "security_group_id" {
  description = "Security group of the storage nodes."
  value       = aws_security_group.nodes.id
}
