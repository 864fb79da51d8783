# AWS adapter: dense-storage instances whose instance-store disks become the tpgen data disks.
# All node logic (specs, inventory, user data) lives in modules/cdn_nodes; this file only maps
# the instances onto it and feeds their addresses back.

locals {
  # Instance store of the supported types, from AWS's published instance type specifications.
  # Nitro exposes instance-store volumes, HDDs included, as NVMe devices (/dev/nvme1n1 and up;
  # nvme0n1 is the EBS root volume), hence device_scheme = "nvme" for every type.
  instance_types = {
    "d3en.xlarge"   = { vcpus = 4, memory = "16GiB", disks = 2, disk_size = "13980GB", media = "hdd" }
    "d3en.2xlarge"  = { vcpus = 8, memory = "32GiB", disks = 4, disk_size = "13980GB", media = "hdd" }
    "d3en.4xlarge"  = { vcpus = 16, memory = "64GiB", disks = 8, disk_size = "13980GB", media = "hdd" }
    "d3en.6xlarge"  = { vcpus = 24, memory = "96GiB", disks = 12, disk_size = "13980GB", media = "hdd" }
    "d3en.8xlarge"  = { vcpus = 32, memory = "128GiB", disks = 16, disk_size = "13980GB", media = "hdd" }
    "d3en.12xlarge" = { vcpus = 48, memory = "192GiB", disks = 24, disk_size = "13980GB", media = "hdd" }
    "i4i.metal"     = { vcpus = 128, memory = "1024GiB", disks = 8, disk_size = "3750GB", media = "nvme" }
  }

  nodes = { for n in var.nodes : n.name => n }

  # The TCP ports the nodes serve on: every listen's (80 when a node gives none, as in the spec),
  # and 80 for the redirect server of tls.redirect_http. HTTP/3 listens take their port on UDP.
  listen_ports = distinct(flatten([
    for n in var.nodes : concat(
      n.listen == null ? [80] : [for l in n.listen : coalesce(l.port, 80)],
      try(n.tls.redirect_http, false) == true ? [80] : [],
    )
  ]))
  quic_ports = distinct(flatten([
    for n in var.nodes : n.listen == null ? [] : [for l in n.listen : coalesce(l.port, 80) if l.http3 == true]
  ]))
}

module "cdn_nodes" {
  source = "../../modules/cdn_nodes"

  nodes = [
    for n in var.nodes : {
      name         = n.name
      ansible_user = n.ansible_user
      cores        = coalesce(n.cores, local.instance_types[n.instance_type].vcpus)
      memory       = coalesce(n.memory, local.instance_types[n.instance_type].memory)
      workload     = n.workload
      listen       = n.listen
      tls          = n.tls
      nginx        = n.nginx
      status       = n.status
      disk_set = {
        count         = local.instance_types[n.instance_type].disks
        size          = local.instance_types[n.instance_type].disk_size
        media         = local.instance_types[n.instance_type].media
        device_scheme = "nvme"
      }
    }
  ]
  addresses = {
    for name, instance in aws_instance.node :
    name => var.use_public_address_for_ansible ? instance.public_ip : instance.private_ip
  }
  ansible_user        = var.ansible_user
  ssh_authorized_keys = var.ssh_authorized_keys
  tpgen_command       = var.tpgen_command
  # EC2 takes at most 16 KB of user data, counted raw, before its base64 encoding
  # (docs.aws.amazon.com/AWSEC2/latest/UserGuide/instancedata-add-user-data.html); user_data
  # below is that raw text, uncompressed. The plan refuses a longer one, naming the node.
  user_data_max_bytes = 16384
}

resource "aws_security_group" "nodes" {
  name_prefix = "tpgen-storage-"
  description = "tpgen storage nodes: SSH from the controller, HTTP from clients"
  vpc_id      = var.vpc_id
  tags        = merge(var.tags, { Name = "tpgen-storage-nodes" })

  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_vpc_security_group_ingress_rule" "ssh" {
  for_each = toset(var.ssh_allowed_cidrs)

  security_group_id = aws_security_group.nodes.id
  description       = "SSH for Ansible from ${each.value}"
  ip_protocol       = "tcp"
  from_port         = 22
  to_port           = 22
  cidr_ipv4         = each.value
  tags              = var.tags
}

resource "aws_vpc_security_group_ingress_rule" "http" {
  #checkov:skip=CKV_AWS_260:A CDN node serves HTTP to its clients; narrow http_allowed_cidrs to the load balancer when there is one.
  for_each = { for pair in setproduct(var.http_allowed_cidrs, local.listen_ports) : "${pair[0]}:${pair[1]}" => pair }

  security_group_id = aws_security_group.nodes.id
  description       = "nginx listen port ${each.value[1]} from ${each.value[0]}"
  ip_protocol       = "tcp"
  from_port         = each.value[1]
  to_port           = each.value[1]
  cidr_ipv4         = each.value[0]
  tags              = var.tags
}

resource "aws_vpc_security_group_ingress_rule" "quic" {
  #checkov:skip=CKV_AWS_260:A CDN node serves HTTP/3 to its clients; narrow http_allowed_cidrs to the load balancer when there is one.
  for_each = { for pair in setproduct(var.http_allowed_cidrs, local.quic_ports) : "${pair[0]}:${pair[1]}" => pair }

  security_group_id = aws_security_group.nodes.id
  description       = "nginx HTTP/3 (QUIC) port ${each.value[1]} from ${each.value[0]}"
  ip_protocol       = "udp"
  from_port         = each.value[1]
  to_port           = each.value[1]
  cidr_ipv4         = each.value[0]
  tags              = var.tags
}

resource "aws_vpc_security_group_egress_rule" "all" {
  #checkov:skip=CKV_AWS_382:Nodes fetch from origins on arbitrary ports and from package mirrors.
  security_group_id = aws_security_group.nodes.id
  description       = "Origins, package mirrors, time and DNS"
  ip_protocol       = "-1"
  cidr_ipv4         = "0.0.0.0/0"
  tags              = var.tags
}

resource "aws_instance" "node" {
  #checkov:skip=CKV2_AWS_41:The nodes need no AWS API access; set iam_instance_profile for SSM or CloudWatch agents.
  for_each = local.nodes

  ami                         = var.ami_id
  instance_type               = each.value.instance_type
  subnet_id                   = coalesce(each.value.subnet_id, var.subnet_id)
  vpc_security_group_ids      = [aws_security_group.nodes.id]
  associate_public_ip_address = var.associate_public_ip
  iam_instance_profile        = var.iam_instance_profile
  monitoring                  = true
  ebs_optimized               = true

  user_data                   = module.cdn_nodes.user_data[each.key]
  user_data_replace_on_change = true

  metadata_options {
    http_endpoint               = "enabled"
    http_tokens                 = "required"
    http_put_response_hop_limit = 1
    instance_metadata_tags      = "disabled"
  }

  root_block_device {
    volume_type           = "gp3"
    volume_size           = var.root_volume_size
    encrypted             = true
    delete_on_termination = true
  }

  tags = merge(var.tags, {
    Name             = each.key
    "tpgen:role"     = "storage_node"
    "tpgen:workload" = each.value.workload.type
  })
}
