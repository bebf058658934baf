api {
  sandbox = true
}

search "cto" {
  keywords = "CTO"
}

moved { # ERROR: Redundant moved block
  from = search.cto
  to   = search.cto
}
