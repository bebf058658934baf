api {
  sandbox = true
}
import "legacy" {
  file    = "legacy.csv"
  columns = { email = "Email", company = "Firma" } # ERROR: An import needs a column that names each member
}
