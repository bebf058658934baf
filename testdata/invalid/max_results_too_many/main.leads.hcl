api {
  sandbox = true
}
search "cto" {
  keywords    = "CTO"
  max_results = 301 # ERROR: max_results above the cap without split_by: The network returns at most 300 results for one search, so max_results above 300 needs split_by
}
