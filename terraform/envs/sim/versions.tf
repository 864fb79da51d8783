terraform {
  required_version = ">= 1.9.0"
  # No required_providers on purpose: terraform_data is built into Terraform, so `terraform init`
  # needs no registry and `terraform apply` works on a machine without network access.
}
