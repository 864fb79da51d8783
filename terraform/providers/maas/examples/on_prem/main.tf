# Two rack servers already commissioned in MAAS: a 12-HDD VOD origin and a mixed cache.
#   terraform init && terraform apply
#   terraform output -raw inventory_yaml > ../../../../../inventories/onprem/hosts.yml

provider "maas" {
  api_version = "2.0"
  api_url     = var.maas_url
  api_key     = var.maas_api_key
}

module "storage" {
  source = "../.."

  ssh_authorized_keys = var.ssh_authorized_keys

  nodes = [
    {
      name     = "vod-dc1-01"
      zone     = "dc1"
      tags     = ["storage"]
      cores    = 32
      memory   = "128GiB"
      workload = { type = "vod", avg_object_size = "8MiB" }
      disks    = [for i, letter in ["b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m"] : { device = "/dev/sd${letter}", size = "16TB", media = "hdd" }]
    },
    {
      name     = "edge-dc1-01"
      zone     = "dc1"
      cores    = 24
      memory   = "96GiB"
      workload = { type = "cache", upstreams = ["vod-dc1-01:80"], avg_object_size = "1MiB" }
      disks = [
        { name = "nvme0", device = "/dev/nvme0n1", size = "3.2TB", media = "nvme" },
        { name = "d1", device = "/dev/sdb", size = "8TB", media = "hdd" },
        { name = "d2", device = "/dev/sdc", size = "8TB", media = "hdd" },
      ]
    },
  ]
}
