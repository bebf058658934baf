api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}
