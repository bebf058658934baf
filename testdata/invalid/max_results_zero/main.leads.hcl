api {
  sandbox = true
}
search "cto" {
  keywords    = "CTO"
  max_results = 0 # ERROR: max_results must be from 1 to 300; got 0.
}
