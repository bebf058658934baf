search "cto" {
  keywords = "CTO"
}

api {
  base_url   = "https://api.example.com"
  generation = 3 # ERROR: generation must be from 1 to 2
}
