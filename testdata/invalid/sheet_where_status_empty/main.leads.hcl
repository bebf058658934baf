api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}
export "marketing" {
  path = "out/leads.xlsx"
  sheet "No e-mail" {
    from  = [search.cto]
    where = person.validationStatus == "empty" # ERROR: Status "empty" is named "not found"
  }
}
