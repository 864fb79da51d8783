output "inventory_yaml" {
  description = "Ansible inventory (YAML): group storage_nodes, each host with ansible_host, ansible_user and its tpgen_spec. Write it with `terraform output -raw inventory_yaml > inventories/<env>/hosts.yml`."
  value       = "${local.inventory_header}${yamlencode(local.inventory)}"
  # Only specs tpgen accepted reach Ansible.
  depends_on = [terraform_data.tpgen_validate]

  precondition {
    condition     = alltrue([for name, address in local.addresses : address != null && address != ""])
    error_message = "A node has no address: set nodes[*].address, or pass it in `addresses` keyed by the node name."
  }

  precondition {
    condition     = alltrue([for name in keys(var.addresses) : contains(keys(local.nodes_by_name), name)])
    error_message = "`addresses` has a key that names no node: key it by the node names in `nodes`."
  }
}

output "inventory" {
  description = "The same inventory as an object (all.children.storage_nodes.hosts.<name>), for callers that post-process it."
  value       = local.inventory
}

output "specs" {
  description = "The tpgen spec of each node, by node name (the value of its tpgen_spec host variable)."
  value       = local.specs
}

output "addresses" {
  description = "The management address of each node, by node name (null when not known yet)."
  value       = local.addresses
}

output "user_data" {
  description = "cloud-init user data (#cloud-config) by node name: creates ansible_user with the SSH keys and password-less sudo, disables password and root logins, installs bootstrap_packages."
  # The template writes the document with yamlencode, not jsonencode: JSON leaves DEL, C1 controls
  # and U+FFFE/U+FFFF raw, which YAML readers (cloud-init's PyYAML) refuse or fold.
  value = local.user_data
  # A machine that reads this is created only after tpgen accepted its spec.
  depends_on = [terraform_data.tpgen_validate]

  precondition {
    # At plan, not when the cloud's API refuses the machine at apply.
    condition     = length(local.user_data_too_long) == 0
    error_message = "The user data of ${join(", ", local.user_data_too_long)} is longer than user_data_max_bytes, ${coalesce(var.user_data_max_bytes, 0)} bytes: shorten ssh_authorized_keys (fewer keys, or ed25519 keys, which are shorter than RSA ones) or bootstrap_packages."
  }
}

output "bootstrap_script" {
  description = "The same access preparation as a POSIX shell script by node name, for installers that run a post-install script instead of cloud-init (OVHcloud OS templates)."
  value = {
    for name, vars in local.template_vars : name => templatefile("${path.module}/templates/bootstrap.sh.tftpl", vars)
  }
  # A machine that reads this is created only after tpgen accepted its spec.
  depends_on = [terraform_data.tpgen_validate]
}
