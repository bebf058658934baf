api { # ERROR: Missing base_url
  generation = 1
}
search "cto" {
  keywords = "CTO"
}
