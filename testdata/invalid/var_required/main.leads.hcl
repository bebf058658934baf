api {
  sandbox = true
}
variable "keyword" { # ERROR: var.keyword has no default and no value was given
  type = string
}

search "cto" {
  keywords = var.keyword
}
