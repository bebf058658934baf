api {
  sandbox = true
}
variable "cities" {
  type    = list(string)
  default = ["Berlin"]
}

search "cto" {
  for_each = toset(var.cities)
  keywords = "CTO"
  city     = each.value
}
