# OVHcloud adapter: (re)install rented dedicated servers with a system-only partitioning and the
# cdn_nodes access preparation, then hand their addresses back to cdn_nodes.

locals {
  nodes = { for n in var.nodes : n.name => n }
  byoi  = startswith(var.os, "byo")
}

module "cdn_nodes" {
  source = "../../modules/cdn_nodes"

  nodes = [
    for n in var.nodes : {
      name         = n.name
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
  addresses           = { for name, server in ovh_dedicated_server.node : name => server.ip }
  ansible_user        = var.ansible_user
  ssh_authorized_keys = var.ssh_authorized_keys
  tpgen_command       = var.tpgen_command
}

resource "ovh_dedicated_server" "node" {
  for_each = local.nodes

  service_name = each.value.service_name
  display_name = each.key
  os           = var.os

  customizations = {
    hostname = each.key
    # OS templates run a post-installation script; own images (byolinux_64) run cloud-init from
    # the config drive. Both carry the same access preparation from cdn_nodes.
    post_installation_script = local.byoi ? null : base64encode(module.cdn_nodes.bootstrap_script[each.key])
    config_drive_user_data   = local.byoi ? base64encode(module.cdn_nodes.user_data[each.key]) : null
    image_url                = local.byoi ? var.image_url : null
  }

  # System partitions only, mirrored over the first os_disks disks: the data disks stay raw for
  # the Ansible storage_disks role, which formats and mounts them from the tpgen spec.
  storage = [
    {
      disk_group_id = each.value.os_disk_group_id
      partitioning = {
        disks = var.os_disks
        layout = [
          for p in var.os_partitions : {
            mount_point = p.mount_point
            file_system = p.file_system
            size        = p.size
            raid_level  = var.os_disks > 1 ? p.raid_level : 0
          }
        ]
      }
    }
  ]

  # The server is rented: destroying the resource must not cancel the service.
  keep_service_after_destroy = true
  prevent_install_on_import  = true
}
