api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
  company  = format("%01001d", 7) # ERROR: company is 1,001 characters long; at most 1,000 are allowed
}
