api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}

enrich "contacts" {
  from  = [search.cto]
  where = lead.company # ERROR: this expression gives a string
}
