api {
  sandbox = true
}

module "dach" {
  source = "./cto.leads.hcl" # ERROR: Module source is not a folder
}
