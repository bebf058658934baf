api {
  sandbox = true
}
search "cto" {
  keywords   = "CTO"
  search_url = "https://network.example/search?keywords=CTO" # ERROR: Both keywords and search_url
}
