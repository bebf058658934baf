api {
  sandbox = true
}
search "cto" {
  keywords       = "CTO"
  country_filter = "Germany" # ERROR: country_filter takes a list of strings, like ["Austria"]
}
