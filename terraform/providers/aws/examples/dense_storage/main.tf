# Two dense HDD cache nodes and one NVMe origin in an existing VPC. Complete root module:
#   terraform init && terraform apply
#   terraform output -raw inventory_yaml > ../../../../../inventories/aws/hosts.yml

provider "aws" {
  region = var.region
}

module "storage" {
  source = "../.."

  vpc_id              = var.vpc_id
  subnet_id           = var.subnet_id
  ami_id              = var.ami_id
  ssh_authorized_keys = var.ssh_authorized_keys
  ssh_allowed_cidrs   = ["198.51.100.0/28"]

  nodes = [
    {
      name          = "edge-use1-01"
      instance_type = "d3en.12xlarge"
      workload      = { type = "cache", upstreams = ["origin.example.net:8080"], avg_object_size = "1MiB" }
    },
    {
      name          = "edge-use1-02"
      instance_type = "d3en.6xlarge"
      workload      = { type = "cache", upstreams = ["origin.example.net:8080"], avg_object_size = "1MiB" }
    },
    {
      name          = "origin-use1-01"
      instance_type = "i4i.metal"
      workload      = { type = "origin", avg_object_size = "4MiB" }
    },
  ]

  tags = { project = "tpgen", env = "example" }
}
