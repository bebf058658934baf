api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}

enrich "contacts" {
  from = [search.cto[0]] # ERROR: search.cto has neither for_each nor count
}
