api {
  sandbox = true
}
variable "cities" {
  type      = set(string)
  default   = ["Berlin"]
  sensitive = true
}

search "cto" {
  for_each = var.cities # ERROR: for_each cannot use a sensitive value
  keywords = "CTO"
}
