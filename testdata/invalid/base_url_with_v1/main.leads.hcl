api {
  base_url = "https://api.example.com/v1" # ERROR: already ends in /v1, which leadsync adds itself
}
search "cto" {
  keywords = "CTO"
}
