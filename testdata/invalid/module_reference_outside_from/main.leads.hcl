api {
  sandbox = true
}

module "dach" {
  source = "./dach"
}

search "cfo" {
  keywords = module.dach.keywords # ERROR: module.dach can be referred to only in the from list of an enrich or track block or a sheet
}
