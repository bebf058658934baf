api {
  base_url = "https://api.example.com"
  api_key  = "sk-live-1234567890" # WARNING: API key written in the configuration
}
search "cto" {
  keywords = "CTO"
}
