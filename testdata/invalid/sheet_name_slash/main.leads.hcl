api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}

export "x" {
  path = "out/leads.xlsx"
  sheet "CTO/CFO" { # ERROR: contains one of []:*?/\
    from = [search.cto]
  }
}
