api {
  sandbox = true
}
exclude "customers" {
  file   = "customers.csv"
  sheet  = "Customers" # ERROR: "customers.csv" is a CSV file, which has no sheets; sheet is for XLSX workbooks. Remove sheet.
  column = "Firma"
  by     = "company"
}
