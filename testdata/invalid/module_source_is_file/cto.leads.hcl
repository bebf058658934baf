search "cto" {
  keywords = "CTO"
}
