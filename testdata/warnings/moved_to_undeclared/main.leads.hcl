api {
  sandbox = true
}

search "cto" {
  keywords = "CTO"
}

moved { # WARNING: This moved block moves search.old to search.ctos, which the configuration does not declare
  from = search.old
  to   = search.ctos
}
