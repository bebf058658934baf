api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}

export "x" {
  path = "out/leads.xlsx"
  sheet "Leads" {
    from = [search.cto]
  }
  sheet "leads" { # ERROR: Duplicate sheet name
    from = [search.cto]
  }
}
