api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}
enrich "all" {
  form = [search.cto] # ERROR: An enrich block has no argument "form". Did you mean "from"?
}
