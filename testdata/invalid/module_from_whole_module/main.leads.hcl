api {
  sandbox = true
}

module "dach" {
  source = "./dach"
}

enrich "contacts" {
  from = [module.dach] # ERROR: from refers to a module's output, not to the module or its blocks
}
