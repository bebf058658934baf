api {
  sandbox = true
}
exclude "customers" {
  file   = "../customers.csv" # ERROR: "../customers.csv" is outside the configuration folder
  column = "Company"
  by     = "company"
}
