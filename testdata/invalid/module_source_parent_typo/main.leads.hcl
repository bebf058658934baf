api {
  sandbox = true
}

module "dach" {
  source = "./persona/cto" # ERROR: Module folder not found: source = "./persona/cto" names the folder persona/cto, which does not exist. The path is relative to the folder of the file that calls the module. Did you mean personas/cto?
}
