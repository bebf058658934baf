api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}

export "a" {
  path = "out/leads.xlsx"
  sheet "Leads" {
    from = [search.cto]
  }
}

export "b" {
  path = "out/leads.xlsx" # ERROR: export.a already writes "out/leads.xlsx"
  sheet "Leads" {
    from = [search.cto]
  }
}
