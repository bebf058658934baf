api {
  sandbox = true
}
api { # ERROR: Duplicate api block
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}
