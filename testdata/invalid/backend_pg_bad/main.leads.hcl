leadsync {
  backend "pg" {
    conn_str    = "postgres://user@db.example.com:notaport/leads" # ERROR: Invalid conn_str
    schema_name = "Leads-Sync" # ERROR: schema_name "Leads-Sync" is not valid
    bucket      = "x" # ERROR: An argument named "bucket" is not expected here
  }
  backend "pg" { # ERROR: Duplicate backend block
  }
}
api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}
