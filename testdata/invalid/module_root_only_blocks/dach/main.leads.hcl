api { # ERROR: An api block says which service to use
  sandbox = true
}

leadsync { # ERROR: A leadsync block (with its backend) says where the state lives
  backend "pg" {
    schema_name = "leads"
  }
}

search "cto" {
  keywords = "CTO"
}

backend "pg" { # ERROR: not in a module (dach): the state's place is the whole run's
  schema_name = "leads"
}
