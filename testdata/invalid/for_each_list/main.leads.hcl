api {
  sandbox = true
}
variable "cities" {
  type    = list(string)
  default = ["Berlin"]
}

search "cto" {
  for_each = var.cities # ERROR: Convert it with toset(...)
  keywords = "CTO"
  city     = each.value
}
