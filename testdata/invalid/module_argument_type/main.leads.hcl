api {
  sandbox = true
}

module "dach" {
  source = "./dach"
  cities = "Berlin" # ERROR: The value of var.cities from the argument cities of module.dach at main.leads.hcl:7 is not a valid list(string)
}
