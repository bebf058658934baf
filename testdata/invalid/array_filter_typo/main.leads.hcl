api {
  sandbox = true
}
search "cto" {
  keywords       = "CTO"
  country_filter = ["Germany", "Austira"] # ERROR: "Austira" is not one of the values the service accepts for country_filter (the built-in field list). Did you mean "Austria"?
}
