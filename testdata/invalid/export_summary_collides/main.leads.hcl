api {
  sandbox = true
}

search "cto" {
  keywords = "CTO"
}

export "a" {
  path = "out/a.csv"
  sheet "leads" {
    from = [search.cto]
  }
}

export "summary" {
  path = "out/a.summary.csv" # ERROR: which export.a also writes (its summary file)
  sheet "leads" {
    from = [search.cto]
  }
}
