api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}
export "marketing" {
  path = "out/leads.xlsx"
  sheet "Leads" {
    from   = [search.cto]
    labels = { email = " " } # ERROR: Empty label: The label of email is empty
  }
}
