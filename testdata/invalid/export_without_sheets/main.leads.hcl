api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}

export "x" { # ERROR: Export without sheets
  path = "out/leads.xlsx"
}
