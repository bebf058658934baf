api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}
enrich "contacts" {
  from = [search.cto]
}
track "champions" {
  from = [enrich.contact] # ERROR: No enrich block named "contact" is declared. Did you mean "contacts"?
}
