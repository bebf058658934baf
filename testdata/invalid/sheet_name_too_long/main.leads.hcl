api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}

export "x" {
  path = "out/leads.xlsx"
  sheet "Chief technology officers in Germany" { # ERROR: has 36 characters; spreadsheets allow at most 31
    from = [search.cto]
  }
}
