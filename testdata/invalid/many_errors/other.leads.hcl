export "x" {
  path = "out/leads.txt" # ERROR: path must end in .xlsx or .csv
  sheet "Leads" {
    from = [search.cto]
  }
}
