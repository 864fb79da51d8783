# One rented storage server: two NVMe for the system, four HDDs for the cache.
#   terraform init && terraform apply
#   terraform output -raw inventory_yaml > ../../../../../inventories/ovh/hosts.yml

provider "ovh" {
  endpoint = "ovh-eu"
}

module "storage" {
  source = "../.."

  ssh_authorized_keys = var.ssh_authorized_keys

  nodes = [
    {
      name         = "edge-gra-01"
      service_name = "ns1234567.ip-203-0-113.eu"
      cores        = 16
      memory       = "64GiB"
      workload     = { type = "cache", upstreams = ["origin.example.net:8080"], avg_object_size = "1MiB" }
      disks = [
        { device = "/dev/sdc", size = "8TB", media = "hdd" },
        { device = "/dev/sdd", size = "8TB", media = "hdd" },
        { device = "/dev/sde", size = "8TB", media = "hdd" },
        { device = "/dev/sdf", size = "8TB", media = "hdd" },
      ]
    },
  ]
}
