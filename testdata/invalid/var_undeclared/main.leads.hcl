api {
  sandbox = true
}
variable "keyword" {
  default = "CTO"
}

search "cto" {
  keywords = var.keywords # ERROR: Did you mean "keyword"?
}
