api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}

export "x" { # ERROR: Missing path
  sheet "Leads" {
    from = [search.cto]
  }
}
