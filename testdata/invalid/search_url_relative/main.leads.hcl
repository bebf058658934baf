api {
  sandbox = true
}
search "cto" {
  search_url = "/search?keywords=CTO" # ERROR: search_url must be an absolute http(s) URL
}
