api {
  base_url = "https://api.example.com/v1" # ERROR: already ends in /v1, but leadsync adds it to every call of the first generation
}
search "cto" {
  keywords = "CTO"
}
