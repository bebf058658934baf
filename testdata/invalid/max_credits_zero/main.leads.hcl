api {
  sandbox     = true
  max_credits = 0 # ERROR: max_credits must be at least 1
}
search "cto" {
  keywords = "CTO"
}
