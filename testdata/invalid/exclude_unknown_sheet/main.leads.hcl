api {
  sandbox = true
}
exclude "customers" {
  file   = "customers.xlsx"
  sheet  = "Old customer" # ERROR: customers.xlsx has no sheet "Old customer"; its sheets are "Customers", "Old customers". Did you mean "Old customers"?
  column = "Firma"
  by     = "company"
}
