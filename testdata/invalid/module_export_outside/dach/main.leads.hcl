search "cto" {
  keywords = "CTO"
}

export "leads" {
  path = "${path.root}/../leads.csv" # ERROR: module.dach.export.leads would write "./../leads.csv", outside the configuration folder.
  sheet "All" {
    from = [search.cto]
  }
}
