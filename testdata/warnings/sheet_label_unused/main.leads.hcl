api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}
export "marketing" {
  path = "out/leads.xlsx"
  sheet "Leads" {
    from    = [search.cto]
    columns = ["fullName", "email"]
    labels = {
      email   = "Work e-mail"
      company = "Firm" # WARNING: This sheet has no column company, so its label is not used
    }
  }
}
