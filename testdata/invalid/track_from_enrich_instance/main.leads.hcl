api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
  for_each = toset(["Berlin", "Hamburg"])
  city     = each.key
}
enrich "contacts" {
  from = [search.cto]
}
track "champions" {
  from = [enrich.contacts["Berlin"]] # ERROR: enrich.contacts is an enrich block, which has no instances: write enrich.contacts (it watches the people the block enriched). from lists search, profile, import and enrich blocks
}
