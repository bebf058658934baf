api {
  sandbox    = true
  rate_limit = 0 # ERROR: rate_limit must be positive
}
search "cto" {
  keywords = "CTO"
}
