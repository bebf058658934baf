variable "city" {
  type = string
  validation {
    condition     = var.city != ""
    error_message = "A city has a name."
  }
}

search "cto" {
  keywords = "CTO"
  city     = var.city
}
