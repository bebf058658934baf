variable "count" { # ERROR: A module's variable cannot be named "count"
  default = 1
}

search "cto" {
  keywords = "CTO"
}
