api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}
export "marketing" {
  path = "out/leads.xlsx"
  sheet "Reachable" {
    from  = [search.cto]
    where = person.validationStatu == "valid" # ERROR: "validationStatu" is not a person field. Did you mean "validationStatus"?
  }
}
