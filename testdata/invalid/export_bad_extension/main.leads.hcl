api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}

export "x" {
  path = "out/leads.pdf" # ERROR: path must end in .xlsx or .csv
  sheet "Leads" {
    from = [search.cto]
  }
}
