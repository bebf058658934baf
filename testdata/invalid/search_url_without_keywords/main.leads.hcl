api {
  sandbox = true
}
search "cto" {
  search_url = "https://network.example/search?q=CTO" # ERROR: requires a keywords parameter
}
