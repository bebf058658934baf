api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}
export "crm" {
  path = "a.xlsx"
  sheet "A" {
    from    = [search.cto]
    columns = ["fullName", "E-mail status"] # ERROR: "E-mail status" is the header text of the column validationStatus
  }
}
