api {
  sandbox = true
}

search "cto" {
  keywords = "CTO"
}

search "ctos" {
  keywords = "CTO"
}

moved { # ERROR: This moved block moves search.cto to search.ctos, but search.cto is still declared (main.leads.hcl:5).
  from = search.cto
  to   = search.ctos
}
