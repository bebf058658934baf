api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
  refresh  = "0d" # ERROR: refresh must be longer than zero
}
