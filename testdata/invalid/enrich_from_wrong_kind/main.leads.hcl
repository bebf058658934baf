api {
  sandbox = true
}
profile "founder" {
  page_name = "Max_Mustermann"
}

enrich "contacts" {
  from = [search.founder] # ERROR: There is a profile block named "founder": did you mean profile.founder?
}
