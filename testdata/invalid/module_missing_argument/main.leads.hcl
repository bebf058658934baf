api {
  sandbox = true
}

module "dach" { # ERROR: module.dach gives no value to the variable "cities" of its module (declared at dach/main.leads.hcl:1 without a default). Add cities = ... to the module block.
  source = "./dach"
}
