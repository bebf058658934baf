api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}

enrich "contacts" {
  from  = [search.cto]
  limit = 0 # ERROR: limit must be at least 1; got 0.
}
