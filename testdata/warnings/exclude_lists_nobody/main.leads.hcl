api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}
enrich "all" {
  from = [search.cto]
}
exclude "customers" {
  file   = "customers.csv" # WARNING: exclude.customers: customers.csv lists nobody
  column = "Firma"
  by     = "company"
}
