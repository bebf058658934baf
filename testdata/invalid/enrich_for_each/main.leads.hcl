api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}

enrich "contacts" {
  for_each = toset(["a"]) # ERROR: for_each is only for search, profile and module blocks
  from     = [search.cto]
}
