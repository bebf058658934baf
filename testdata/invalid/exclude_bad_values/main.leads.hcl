api {
  sandbox = true
}
exclude "dnc" {
  file   = "dnc.csv" # ERROR: 2 rows of the list file cannot be used
  column = "Domain"
  by     = "domain"
}
