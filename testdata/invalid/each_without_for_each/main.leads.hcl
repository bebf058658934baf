api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
  city     = each.value # ERROR: each.key and each.value exist only in a search, profile or module block that has for_each
}
