api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}

export "x" {
  path = "out/leads.xlsx"
  sheet "Leads" {
    from    = [search.cto]
    columns = ["fullName", "emial"] # ERROR: "emial" is not a column. Did you mean "email"?
  }
}
