# One run per validation rule: each input breaks exactly one rule, and the plan must fail on it.
# tests/terraform/test_cdn_nodes_messages.py replays these runs with `terraform plan` and checks
# that the error printed is the intended rule's message and the only error. These rules are
# structure only; the spec's own rules are tpgen's (tests/tpgen.tftest.hcl).

variables {
  ssh_authorized_keys = ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBx7mDWWlfKDD3qBbkJ+4PqS0mkWMGzdAv9kXpbX5l0c tpgen@example"]
  nodes = [
    {
      name     = "edge-01"
      address  = "192.0.2.10"
      workload = { type = "cache", upstreams = ["origin.example.net:8080"] }
      disks    = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }]
    },
  ]
}

run "accepts_the_base_input" {
  command = plan
}

run "rejects_empty_node_list" {
  command = plan
  variables {
    nodes = []
  }
  expect_failures = [var.nodes]
}

run "rejects_duplicate_node_names" {
  command = plan
  variables {
    nodes = [
      { name = "edge-01", address = "192.0.2.10", workload = { type = "origin" }, disks = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }] },
      { name = "edge-01", address = "192.0.2.11", workload = { type = "origin" }, disks = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }] },
    ]
  }
  expect_failures = [var.nodes]
}

run "rejects_node_without_disks" {
  command = plan
  variables {
    nodes = [{ name = "edge-01", address = "192.0.2.10", workload = { type = "origin" } }]
  }
  expect_failures = [var.nodes]
}

run "rejects_disks_and_disk_set_together" {
  command = plan
  variables {
    nodes = [{
      name     = "edge-01", address = "192.0.2.10", workload = { type = "origin" }
      disks    = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }]
      disk_set = { count = 2, size = "4TB", media = "hdd" }
    }]
  }
  expect_failures = [var.nodes]
}

run "rejects_disk_set_beyond_sdz" {
  command = plan
  variables {
    nodes = [{ name = "edge-01", address = "192.0.2.10", workload = { type = "origin" }, disk_set = { count = 30, size = "4TB", media = "hdd" } }]
  }
  expect_failures = [var.nodes]
}

run "rejects_bad_node_ansible_user" {
  command = plan
  variables {
    nodes = [{ name = "edge-01", address = "192.0.2.10", ansible_user = "Ops User", workload = { type = "origin" }, disks = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }] }]
  }
  expect_failures = [var.nodes]
}

run "rejects_root_as_ansible_user" {
  command = plan
  variables {
    ansible_user = "root"
  }
  expect_failures = [var.ansible_user]
}

run "rejects_empty_ssh_keys" {
  command = plan
  variables {
    ssh_authorized_keys = []
  }
  expect_failures = [var.ssh_authorized_keys]
}

run "rejects_private_key_as_ssh_key" {
  command = plan
  variables {
    ssh_authorized_keys = ["-----BEGIN OPENSSH PRIVATE KEY-----"]
  }
  expect_failures = [var.ssh_authorized_keys]
}

run "rejects_bad_bootstrap_package" {
  command = plan
  variables {
    bootstrap_packages = ["python3; reboot"]
  }
  expect_failures = [var.bootstrap_packages]
}

run "rejects_tuning_for_unknown_node" {
  command = plan
  variables {
    tuning = { "edge-99" = { threads_per_disk = 32 } }
  }
  expect_failures = [var.tuning]
}

run "rejects_node_without_address" {
  command = plan
  variables {
    nodes = [{ name = "edge-01", workload = { type = "origin" }, disks = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }] }]
  }
  expect_failures = [output.inventory_yaml]
}

run "rejects_address_for_unknown_node" {
  command = plan
  variables {
    addresses = { "edge-99" = "192.0.2.99" }
  }
  expect_failures = [output.inventory_yaml]
}

run "rejects_control_character_in_ssh_key" {
  command = plan
  variables {
    ssh_authorized_keys = ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBx7mDWWlfKDD3qBbkJ+4PqS0mkWMGzdAv9kXpbX5l0c a\u0000b"]
  }
  expect_failures = [var.ssh_authorized_keys]
}

run "rejects_root_as_node_ansible_user" {
  command = plan
  variables {
    nodes = [{ name = "edge-01", address = "192.0.2.10", ansible_user = "root", workload = { type = "origin" }, disks = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }] }]
  }
  expect_failures = [var.nodes]
}

run "rejects_node_name_ansible_reads_as_a_port" {
  command = plan
  variables {
    nodes = [{ name = "edge-01:2222", address = "192.0.2.10", workload = { type = "origin" }, disks = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }] }]
  }
  expect_failures = [var.nodes]
}

run "rejects_node_name_ansible_reads_as_a_range" {
  command = plan
  variables {
    nodes = [{ name = "edge-[01:03]", address = "192.0.2.10", workload = { type = "origin" }, disks = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }] }]
  }
  expect_failures = [var.nodes]
}

run "rejects_node_named_after_a_group" {
  command = plan
  variables {
    nodes = [{ name = "ungrouped", address = "192.0.2.10", workload = { type = "origin" }, disks = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }] }]
  }
  expect_failures = [var.nodes]
}

run "rejects_shell_in_node_address" {
  command = plan
  variables {
    nodes = [{ name = "edge-01", address = "192.0.2.10`reboot`", workload = { type = "origin" }, disks = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }] }]
  }
  expect_failures = [var.nodes]
}

run "rejects_ssh_option_as_node_address" {
  command = plan
  variables {
    nodes = [{ name = "edge-01", address = "-oProxyCommand=id", workload = { type = "origin" }, disks = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }] }]
  }
  expect_failures = [var.nodes]
}

run "rejects_command_as_address" {
  command = plan
  variables {
    addresses = { "edge-01" = "$(id)" }
  }
  expect_failures = [var.addresses]
}

run "rejects_template_in_a_spec_string" {
  command = plan
  variables {
    nodes = [{ name = "edge-01", address = "192.0.2.10", workload = { type = "cache", upstreams = ["origin.example.net:8080"], cache_key = "$uri{{ lookup('pipe', 'id') }}" }, disks = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }] }]
  }
  expect_failures = [var.nodes]
}

run "rejects_template_in_tuning" {
  command = plan
  variables {
    tuning = { "edge-01" = { threads_per_disk = "{% raw %}" } }
  }
  expect_failures = [var.tuning]
}

run "accepts_ip_and_dns_addresses" {
  command = plan
  variables {
    nodes = [
      { name = "edge-01", address = "2001:db8::10", workload = { type = "origin" }, disks = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }] },
      { name = "edge-02", address = "edge-02.example.net", workload = { type = "origin" }, disks = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }] },
    ]
    addresses = { "edge-01" = "192.0.2.10" }
  }
}

run "rejects_blank_tpgen_command" {
  command = plan
  variables {
    tpgen_command = " "
  }
  expect_failures = [var.tpgen_command]
}

run "rejects_fractional_disk_set_first_index" {
  command = plan
  variables {
    nodes = [{ name = "edge-01", address = "192.0.2.10", workload = { type = "origin" }, disk_set = { count = 2, size = "4TB", media = "nvme", first_index = 1.5 } }]
  }
  expect_failures = [var.nodes]
}

run "rejects_fractional_disk_set_first_index_of_sd_disks" {
  command = plan
  variables {
    nodes = [{ name = "edge-01", address = "192.0.2.10", workload = { type = "origin" }, disk_set = { count = 2, size = "4TB", media = "hdd", first_index = 1.5 } }]
  }
  expect_failures = [var.nodes]
}

run "rejects_node_name_tpgen_refuses" {
  command = plan
  variables {
    nodes = [{ name = "Edge_01", address = "192.0.2.10", workload = { type = "origin" }, disks = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }] }]
  }
  expect_failures = [var.nodes]
}

run "rejects_node_name_longer_than_a_host_name" {
  command = plan
  variables {
    nodes = [{ name = format("%s.%s.%s.%s", format("%063d", 0), format("%063d", 0), format("%063d", 0), format("%062d", 0)), address = "192.0.2.10", workload = { type = "origin" }, disks = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }] }]
  }
  expect_failures = [var.nodes]
}

run "rejects_disk_name_tpgen_refuses" {
  command = plan
  variables {
    nodes = [{ name = "edge-01", address = "192.0.2.10", workload = { type = "origin" }, disks = [{ name = "Disk-1", device = "/dev/sdb", size = "4TB", media = "hdd" }] }]
  }
  expect_failures = [var.nodes]
}

run "rejects_disk_name_nginx_map_reserves" {
  command = plan
  variables {
    nodes = [{ name = "edge-01", address = "192.0.2.10", workload = { type = "origin" }, disks = [{ name = "default", device = "/dev/sdb", size = "4TB", media = "hdd" }] }]
  }
  expect_failures = [var.nodes]
}

run "rejects_server_name_tpgen_refuses" {
  command = plan
  variables {
    nodes = [{
      name = "edge-01", address = "192.0.2.10", workload = { type = "origin" }, disks = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }]
      tls  = { certificates = [{ cert = "/etc/nginx/tls/edge.crt", key = "/etc/nginx/tls/edge.key", server_names = ["cdn.example.com", "CDN.example.com"] }] }
    }]
  }
  expect_failures = [var.nodes]
}

run "accepts_link_local_addresses_with_their_interface" {
  command = plan
  variables {
    nodes = [
      { name = "edge-01", address = "fe80::1%eth0", workload = { type = "origin" }, disks = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }] },
      { name = "edge-02", address = "192.0.2.11", workload = { type = "origin" }, disks = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }] },
    ]
    addresses = { "edge-02" = "FEBF:0:0:0:0:0:0:2%enp0s31f6.100" }
  }
  assert {
    condition     = output.addresses == { "edge-01" = "fe80::1%eth0", "edge-02" = "FEBF:0:0:0:0:0:0:2%enp0s31f6.100" }
    error_message = "A link-local address keeps its interface, as ssh takes it."
  }
}

run "rejects_interface_on_a_global_address" {
  command = plan
  variables {
    nodes = [{ name = "edge-01", address = "2001:db8::1%eth0", workload = { type = "origin" }, disks = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }] }]
  }
  expect_failures = [var.nodes]
}

run "rejects_shell_in_the_interface_of_a_node_address" {
  command = plan
  variables {
    nodes = [{ name = "edge-01", address = "fe80::1%eth0;id", workload = { type = "origin" }, disks = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }] }]
  }
  expect_failures = [var.nodes]
}

run "rejects_an_interface_longer_than_linux_allows" {
  command = plan
  variables {
    nodes = [{ name = "edge-01", address = "fe80::1%abcdefghijklmnop", workload = { type = "origin" }, disks = [{ device = "/dev/sdb", size = "4TB", media = "hdd" }] }]
  }
  expect_failures = [var.nodes]
}

run "rejects_a_command_in_the_interface_of_an_address" {
  command = plan
  variables {
    addresses = { "edge-01" = "fe80::1%$(id)" }
  }
  expect_failures = [var.addresses]
}

run "rejects_user_data_longer_than_the_limit" {
  command = plan
  variables {
    # The base input's user data is some 600 bytes (AWS's limit, 16384: test_cdn_nodes_user_data.py).
    user_data_max_bytes = 512
  }
  expect_failures = [output.user_data]
}

run "rejects_fractional_user_data_max_bytes" {
  command = plan
  variables {
    user_data_max_bytes = 1.5
  }
  expect_failures = [var.user_data_max_bytes]
}
