api {
  sandbox = true
  timeout = "soon" # ERROR: invalid duration "soon"
}
search "cto" {
  keywords = "CTO"
}
