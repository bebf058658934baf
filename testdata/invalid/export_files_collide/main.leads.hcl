api {
  sandbox = true
}

search "cto" {
  keywords = "CTO"
}

# Two sheets: a-b.csv and a-c.csv, and a.summary.csv.
export "a" {
  path = "out/a.csv"
  sheet "b" {
    from = [search.cto]
  }
  sheet "c" {
    from = [search.cto]
  }
}

export "ab" {
  path = "out/A-b.csv" # ERROR: export.ab writes "out/A-b.csv" (its file), which export.a also writes (the file of its sheet "b")
  sheet "leads" {
    from = [search.cto]
  }
}
