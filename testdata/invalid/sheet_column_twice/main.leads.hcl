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
    columns = ["email", "email"] # ERROR: "email" is listed twice
  }
}
