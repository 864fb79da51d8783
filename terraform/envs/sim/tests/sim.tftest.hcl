# The simulated environment end to end: apply creates the stand-in hosts (terraform_data, no
# provider), their addresses flow back into the inventory. State stays in memory.

run "apply_builds_inventory_from_stand_in_hosts" {
  command = apply

  assert {
    condition     = jsonencode(sort(keys(yamldecode(output.inventory_yaml).all.children.storage_nodes.hosts))) == jsonencode(["edge-sim-01", "edge-sim-02", "vod-sim-01"])
    error_message = "Every simulated node must be a host of storage_nodes."
  }
  assert {
    condition = alltrue([
      for name, host in yamldecode(output.inventory_yaml).all.children.storage_nodes.hosts :
      host.ansible_host == terraform_data.host[name].output.address
    ])
    error_message = "ansible_host must be the address the stand-in host reports (fed back through `addresses`)."
  }
  assert {
    condition     = jsonencode(output.hosts) == jsonencode({ "edge-sim-01" = "127.0.10.10", "edge-sim-02" = "127.0.10.11", "vod-sim-01" = "127.0.10.12" })
    error_message = "Hosts take addresses 10, 11, 12 of address_cidr in name order."
  }
  assert {
    condition = alltrue([
      for name, host in terraform_data.host : host.output.user_data_sha256 == sha256(output.user_data[name])
    ])
    error_message = "Each stand-in host must have been given its own node's user data."
  }
  assert {
    condition     = [for d in yamldecode(output.inventory_yaml).all.children.storage_nodes.hosts["edge-sim-02"].tpgen_spec.disks : d.device] == ["/dev/nvme1n1", "/dev/nvme2n1", "/dev/nvme3n1", "/dev/nvme4n1"]
    error_message = "The AWS-style disk_set (HDDs exposed as NVMe) must enumerate /dev/nvme1n1.. /dev/nvme4n1."
  }
  assert {
    condition = alltrue([
      for name, host in yamldecode(output.inventory_yaml).all.children.storage_nodes.hosts :
      host.tpgen_spec.node.name == name && host.tpgen_spec.node.cores >= 1 && host.tpgen_spec.node.memory != ""
    ])
    error_message = "Every simulated spec carries node name, cores and memory, so that `tpgen validate` accepts it."
  }
}

run "custom_range_and_user" {
  command = apply

  variables {
    address_cidr = "127.42.0.0/16"
    ansible_user = "deploy"
  }

  assert {
    condition     = output.hosts["edge-sim-01"] == "127.42.0.10"
    error_message = "Addresses come from address_cidr."
  }
  assert {
    condition     = alltrue([for name, host in yamldecode(output.inventory_yaml).all.children.storage_nodes.hosts : host.ansible_user == "deploy"])
    error_message = "ansible_user is passed through to every host."
  }
}

run "rejects_non_loopback_range" {
  command = plan

  variables {
    address_cidr = "10.0.0.0/24"
  }

  expect_failures = [var.address_cidr]
}

run "rejects_malformed_range" {
  command = plan

  variables {
    address_cidr = "127.0.0.0/8 "
  }

  expect_failures = [var.address_cidr]
}

run "rejects_range_too_small_for_the_nodes" {
  command = plan

  variables {
    address_cidr = "127.0.0.0/28"
    nodes = [for i in range(7) : {
      name     = "edge-sim-${i}"
      workload = { type = "origin" }
      disks    = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }]
    }]
  }

  expect_failures = [var.address_cidr]
}

run "accepts_a_range_the_nodes_just_fill" {
  command = apply

  variables {
    address_cidr = "127.0.0.0/28"
    nodes = [for i in range(6) : {
      name     = "edge-sim-${i}"
      workload = { type = "origin" }
      disks    = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }]
    }]
  }

  assert {
    condition     = output.hosts["edge-sim-5"] == "127.0.0.15"
    error_message = "Six nodes take the addresses 10 to 15 of a /28."
  }
}
