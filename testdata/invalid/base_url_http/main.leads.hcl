api {
  base_url = "http://api.example.com" # ERROR: uses http://, which would send the API key unencrypted
}
search "cto" {
  keywords = "CTO"
}
