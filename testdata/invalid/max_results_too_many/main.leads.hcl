api {
  sandbox = true
}
search "cto" {
  keywords    = "CTO"
  max_results = 301 # ERROR: max_results must be from 1 to 300; got 301.
}
