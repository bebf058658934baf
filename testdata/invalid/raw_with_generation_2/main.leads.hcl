search "cto" {
  keywords = "CTO"
  raw      = true # ERROR: raw needs generation 1
}

api {
  base_url    = "https://api.example.com"
  base_url_v2 = "https://v2.example.com"
  generation  = 2
}
