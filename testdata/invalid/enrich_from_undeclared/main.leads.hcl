api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}

enrich "contacts" {
  from = [search.cot] # ERROR: No search block named "cot" is declared. Did you mean "cto"?
}
