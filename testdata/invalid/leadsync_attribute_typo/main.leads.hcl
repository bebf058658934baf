api {
  sandbox = true
}

search "a" {
  keywords = "CTO"
}

export "leads" {
  path = "out/${leadsync.worksapce}.xlsx" # ERROR: leadsync has one attribute in expressions
  sheet "All" {
    from = [search.a]
  }
}
