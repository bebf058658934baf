api {
  sandbox = true
}
search "cto" {
  keywords       = "CTO"
  country_filter = ["UK"] # ERROR: "UK" is not one of the values the service accepts for country_filter (the built-in field list). Did you mean "United Kingdom"?
}
