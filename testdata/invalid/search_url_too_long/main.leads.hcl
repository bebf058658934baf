api {
  sandbox = true
}
search "cto" {
  search_url = "https://network.example/search?keywords=CTO&q=${format("%04097d", 0)}" # ERROR: search_url is 4,143 characters long; at most 4,096 are allowed
}
