api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
  industry = ["Internet and IT"] # ERROR: Did you mean "industry_filter"?
}
