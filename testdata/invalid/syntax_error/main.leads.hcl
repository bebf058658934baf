api {
  sandbox = true
}
search "cto" {
  keywords = # ERROR: Invalid expression
}
