api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}

enrich "contacts" { # ERROR: Missing from
  limit = 5
}
