api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}
export "marketing" {
  path = "out/leads.xlsx"
  sheet "Leads" {
    from = [search.cto]
    labels = {
      title  = "Job title"
      emial  = "Status" # ERROR: labels names "emial", which is not a column. Did you mean "email"?
    }
  }
}
