api {
  sandbox = true
}
import "legacy" {
  file    = "legacy.csv" # ERROR: 4 rows of the list file cannot be used
  columns = { profile_url = "LinkedIn URL", network_id = "ID", email = "Email", validation_status = "Status", enriched_at = "Exported" }
}
