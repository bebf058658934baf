api {
  sandbox = true
}

module "dach" {
  source = "./personas/cto" # ERROR: The module folder personas/cto holds no *.leads.hcl file
}
