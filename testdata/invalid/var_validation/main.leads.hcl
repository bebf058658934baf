api {
  sandbox = true
}
variable "max" {
  type    = number
  default = 500 # ERROR: max must be at most 300.
  validation {
    condition     = var.max <= 300
    error_message = "max must be at most 300."
  }
}

search "cto" {
  keywords    = "CTO"
  max_results = var.max
}
