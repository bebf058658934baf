api {
  sandbox = true
}
exclude "customers" {
  file   = "crm/customers.csv" # ERROR: crm/customers.csv: does not exist; the path is relative to the configuration folder
  column = "Company"
  by     = "company"
}
