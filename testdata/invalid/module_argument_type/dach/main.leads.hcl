variable "cities" {
  type = list(string)
}

search "cto" {
  for_each = toset(var.cities)
  keywords = "CTO"
  city     = each.value
}
