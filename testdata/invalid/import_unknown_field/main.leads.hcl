api {
  sandbox = true
}
import "legacy" {
  file    = "legacy.csv"
  columns = { profile_url = "URL", mail = "Email" } # ERROR: "mail" is not a field an import reads
}
