api {
  sandbox = true
}
search "cto" {
  keywords = lead.title # ERROR: lead.<field> exists only in the where expression
}
