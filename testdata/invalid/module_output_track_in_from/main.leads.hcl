api {
  sandbox = true
}

module "dach" {
  source = "./dach"
}

enrich "contacts" {
  from = [module.dach.champions] # ERROR: module.dach.champions gives module.dach.track.champions, a track block, and from lists search, profile and import blocks.
}
