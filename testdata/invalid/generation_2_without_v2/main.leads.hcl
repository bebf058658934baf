search "cto" {
  keywords = "CTO"
}

api {
  base_url   = "https://api.example.com"
  generation = 2 # ERROR: Missing base_url_v2
}
