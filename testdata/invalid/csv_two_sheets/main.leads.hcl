api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}

export "x" {
  path = "out/leads.csv"
  sheet "A" {
    from = [search.cto]
  }
  sheet "B" { # ERROR: Several sheets in a CSV export
    from = [search.cto]
  }
}
