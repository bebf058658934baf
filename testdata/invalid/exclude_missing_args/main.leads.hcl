api {
  sandbox = true
}
exclude "customers" { # ERROR: An exclude block needs file, the CSV or XLSX list to read
  column = "Company"
  by     = "company"
}
