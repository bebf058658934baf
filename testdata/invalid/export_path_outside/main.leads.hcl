api {
  sandbox = true
}

search "cto" {
  keywords = "CTO"
}

export "away" {
  path = "../../shared/leads.xlsx" # ERROR: Export path outside the configuration folder
  sheet "leads" {
    from = [search.cto]
  }
}

export "absolute" {
  path = "/etc/leads.csv" # ERROR: add allow_outside = true
  sheet "leads" {
    from = [search.cto]
  }
}

export "allowed" {
  path          = "../allowed/leads.xlsx"
  allow_outside = true
  sheet "leads" {
    from = [search.cto]
  }
}
