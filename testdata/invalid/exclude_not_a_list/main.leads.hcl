api {
  sandbox = true
}
exclude "customers" {
  file   = "customers.txt" # ERROR: customers.txt: has the extension ".txt"; a list file is a .csv or an .xlsx file with a header row
  column = "Company"
  by     = "company"
}
