api {
  sandbox = true
}
exclude "customers" {
  file   = "customers.csv"
  column = "Company"
  by     = "companies" # ERROR: by says what the column holds: one of company, domain, email, profile_url, page_name, network_id; got "companies". Did you mean "company"?
}
