# A simulated environment: `terraform_data` resources stand in for the machines, so the whole
# flow (user data -> machine -> address -> inventory) runs with no provider and no network.
# It is wired exactly like the provider adapters: the hosts consume the module's user data and
# feed their addresses back through `addresses`.

locals {
  names = sort([for n in var.nodes : n.name])
}

resource "terraform_data" "host" {
  for_each = { for n in var.nodes : n.name => n }

  input = {
    hostname         = each.key
    address          = cidrhost(var.address_cidr, 10 + index(local.names, each.key))
    user_data_sha256 = sha256(module.cdn_nodes.user_data[each.key])
  }
}

module "cdn_nodes" {
  source = "../../modules/cdn_nodes"

  nodes               = var.nodes
  addresses           = { for name, host in terraform_data.host : name => host.output.address }
  ansible_user        = var.ansible_user
  ssh_authorized_keys = var.ssh_authorized_keys
  tpgen_command       = var.tpgen_command
}
