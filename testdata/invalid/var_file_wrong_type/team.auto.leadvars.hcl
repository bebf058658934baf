cities = "Berlin" # ERROR: The value of var.cities from team.auto.leadvars.hcl is not a valid list(string)
