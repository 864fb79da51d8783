terraform {
  # 1.9 is the first release whose validation blocks may look at other variables; 1.6 brought
  # `terraform test`. No required_providers: this module uses no provider at all.
  required_version = ">= 1.9.0"
}
