api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}
export "crm" {
  path = "a.xlsx"
  sheet "A" {
    from = [search.cto]
  }
}
export "crm" { # ERROR: An export block named "crm" is already declared at main.leads.hcl:7
  path = "b.xlsx"
  sheet "A" {
    from = [search.cto]
  }
}
