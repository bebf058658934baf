api {
  sandbox = true
}
import "crm" {
  file    = "crm.csv"
  sheet   = " " # ERROR: sheet names the sheet of an XLSX workbook to read, like sheet = "Customers"; without it every sheet not hidden is read. Remove it, or name a sheet.
  columns = { page_name = "Profile" }
}
