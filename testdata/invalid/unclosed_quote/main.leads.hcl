api {
  sandbox = true
}

search "cto" {
  keywords = "CTO # ERROR: Missing closing quote
  location = "Berlin"
  max_results = 50
}

search "vp" {
  keywords = "VP Engineering"
}

export "leads" {
  path = "out/leads.xlsx"
  sheet "CTOs" {
    from = [search.cto]
  }
}
