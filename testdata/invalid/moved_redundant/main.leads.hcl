api {
  sandbox = true
}

search "cto" {
  keywords = "CTO"
}

moved { # ERROR: Redundant moved block: This moves search.cto to the same address, which moves nothing; remove it.
  from = search.cto
  to   = search.cto
}
