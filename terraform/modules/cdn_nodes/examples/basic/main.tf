# Two hand-listed nodes straight into an inventory, no machines: the smallest use of the module.
#   terraform init && terraform apply
#   terraform output -raw inventory_yaml > /tmp/hosts.yml

module "cdn_nodes" {
  source = "../.."

  ssh_authorized_keys = var.ssh_authorized_keys

  nodes = [
    {
      name     = "edge-ams-01"
      address  = "192.0.2.11"
      cores    = 24
      memory   = "48GiB"
      workload = { type = "cache", upstreams = ["origin-a.example.net:8080"], avg_object_size = "1MiB" }
      disks = [
        { device = "/dev/sdb", size = "4TB", media = "hdd" },
        { device = "/dev/sdc", size = "4TB", media = "hdd" },
      ]
    },
    {
      name     = "vod-fra-01"
      address  = "192.0.2.21"
      cores    = 32
      memory   = "128GiB"
      workload = { type = "vod", avg_object_size = "8MiB" }
      disk_set = { count = 12, size = "16TB", media = "hdd" }
    },
  ]
}
