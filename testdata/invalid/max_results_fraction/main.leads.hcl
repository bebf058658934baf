api {
  sandbox = true
}
search "cto" {
  keywords    = "CTO"
  max_results = 2.5 # ERROR: max_results must be a whole number
}
