api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
  company  = 42 # ERROR: company must be a string; got a number
}
