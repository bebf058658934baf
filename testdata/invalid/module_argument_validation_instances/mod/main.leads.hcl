variable "cities" {
  type = list(string)
}

variable "limit" {
  type = number
  validation {
    condition     = var.limit > 0
    error_message = "limit must be positive."
  }
}

search "cto" {
  for_each    = toset(var.cities)
  keywords    = "CTO"
  city        = each.value
  max_results = var.limit
}
