api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}

search "cto" { # ERROR: Duplicate search block
  keywords = "Chief Technology Officer"
}
