api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
  raw      = "yes" # ERROR: raw must be true or false
}
