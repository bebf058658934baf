search "cto" {
  keywords = "CTO"
}

api {
  sandbox  = true
  ratelimit = 1 # ERROR: Did you mean "rate_limit"?
}
