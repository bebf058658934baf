api {
  sandbox = true
}
exclude "customers" {
  file   = "customers.csv" # ERROR: customers.csv:2: column "Firma": has byte 0xFC at position 2 ("ü" in Windows-1252): the file is not UTF-8 text
  column = "Firma"
  by     = "company"
}
