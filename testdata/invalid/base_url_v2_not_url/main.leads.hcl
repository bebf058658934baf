api {
  base_url    = "https://api.example.com"
  base_url_v2 = "v2.example.com" # ERROR: is not an absolute URL
}
search "cto" {
  keywords = "CTO"
}
