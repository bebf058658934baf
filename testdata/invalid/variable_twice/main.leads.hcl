api {
  sandbox = true
}
variable "kw" {
  default = "CTO"
}

variable "kw" { # ERROR: Duplicate variable block
  default = "CFO"
}
search "cto" {
  keywords = "CTO"
}
