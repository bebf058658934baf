api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}

enrich "contacts" {
  from = ["search.cto"] # ERROR: write search.cto without quotes
}
