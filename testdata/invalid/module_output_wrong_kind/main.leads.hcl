api {
  sandbox = true
}

module "dach" {
  source = "./dach"
}

export "leads" {
  path = "out/leads.xlsx"
  sheet "Enriched" {
    from = [module.dach.contacts] # ERROR: module.dach.contacts gives module.dach.enrich.contacts, an enrich block, and from lists search, profile and import blocks.
  }
}
