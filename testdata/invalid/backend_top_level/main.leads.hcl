api {
  sandbox = true
}

backend "pg" { # ERROR: A backend block belongs in the leadsync block of the root configuration
  schema_name = "leads"
}
