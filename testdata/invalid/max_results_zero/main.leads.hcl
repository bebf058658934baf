api {
  sandbox = true
}
search "cto" {
  keywords    = "CTO"
  max_results = 0 # ERROR: max_results must be at least 1; got 0.
}
