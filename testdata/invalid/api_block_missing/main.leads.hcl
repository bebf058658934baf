# ERROR: Missing api block
search "cto" {
  keywords = "CTO"
}
