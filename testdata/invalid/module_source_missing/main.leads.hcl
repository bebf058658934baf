api {
  sandbox = true
}

module "dach" {
  source = "./personas/ctos" # ERROR: Module folder not found: source = "./personas/ctos" names the folder personas/ctos, which does not exist. The path is relative to the folder of the file that calls the module. Did you mean personas/cto?
}
