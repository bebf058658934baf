api {
  sandbox = true
}
search "my cto" { # ERROR: Invalid search name
  keywords = "CTO"
}
