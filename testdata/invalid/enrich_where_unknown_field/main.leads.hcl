api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}

enrich "contacts" {
  from  = [search.cto]
  where = lead.compnay != "" # ERROR: Did you mean "company"?
}
