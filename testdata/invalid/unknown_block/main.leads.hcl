api {
  sandbox = true
}
serach "cto" { # ERROR: Unsupported block type
  keywords = "CTO"
}
