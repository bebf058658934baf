api {
  sandbox = true
}

module "dach" {
  source = "./dach"
}

enrich "contacts" {
  from = [module.dach.cto] # ERROR: The module of module.dach (dach) has no output "cto". Did you mean "ctos"?
}
