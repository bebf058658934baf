api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}

enrich "contacts" {
  from  = [search.cto]
  where = lead.email != "" # ERROR: Unknown lead field
}
