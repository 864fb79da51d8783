# MAAS adapter: deploy commissioned bare-metal machines with the cdn_nodes user data, erase
# their disks when they are released, and hand their addresses back to cdn_nodes.

locals {
  nodes = { for n in var.nodes : n.name => n }
}

module "cdn_nodes" {
  source = "../../modules/cdn_nodes"

  nodes = [
    for n in var.nodes : {
      name = n.name
      # Known at plan, so cdn_nodes checks it before any machine is deployed; through `addresses`
      # alone (unknown until the machines exist) it would be checked only after.
      address      = n.address
      ansible_user = n.ansible_user
      cores        = n.cores
      memory       = n.memory
      workload     = n.workload
      disks        = n.disks
      disk_set     = n.disk_set
      listen       = n.listen
      tls          = n.tls
      nginx        = n.nginx
      status       = n.status
    }
  ]
  addresses = {
    for name, machine in maas_instance.node :
    name => coalesce(local.nodes[name].address, try(sort(tolist(machine.ip_addresses))[0], null))
  }
  ansible_user        = var.ansible_user
  ssh_authorized_keys = var.ssh_authorized_keys
  tpgen_command       = var.tpgen_command
}

resource "maas_instance" "node" {
  for_each = local.nodes

  allocate_params {
    system_id     = each.value.system_id
    hostname      = each.value.system_id == null ? coalesce(each.value.maas_hostname, each.key) : null
    zone          = each.value.zone
    pool          = each.value.pool
    tags          = each.value.tags
    min_cpu_count = each.value.cores
  }

  deploy_params {
    distro_series = var.distro_series
    hwe_kernel    = var.hwe_kernel
    user_data     = module.cdn_nodes.user_data[each.key]
  }

  # Cache and origin disks hold customer content: never hand a machine back to the pool unwiped.
  release_params {
    erase        = true
    secure_erase = var.secure_erase
    quick_erase  = var.quick_erase
    comment      = "Released by tpgen (terraform/providers/maas); disks erased."
  }
}
