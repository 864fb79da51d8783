terraform {
  required_version = ">= 1.9.0"

  required_providers {
    maas = {
      source  = "canonical/maas"
      version = "~> 2.3"
    }
  }
}
