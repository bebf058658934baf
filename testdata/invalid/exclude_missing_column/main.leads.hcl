api {
  sandbox = true
}
exclude "customers" {
  file   = "customers.csv" # ERROR: customers.csv:1: has no column "Company"; its columns are "Firma", "E-Mail", "Ort"
  column = "Company"
  by     = "company"
}
