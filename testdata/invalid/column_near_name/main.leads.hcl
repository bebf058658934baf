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
    columns = ["fullName", "emailStatus"] # ERROR: "emailStatus" is not a column. Did you mean "validationStatus"
  }
}
