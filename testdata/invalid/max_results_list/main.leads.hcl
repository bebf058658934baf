api {
  sandbox = true
}
search "cto" {
  keywords    = "CTO"
  max_results = [100] # ERROR: max_results must be a whole number; got a list
}
