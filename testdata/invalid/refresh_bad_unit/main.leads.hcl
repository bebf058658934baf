api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
  refresh  = "7days" # ERROR: invalid duration "7days"
}
