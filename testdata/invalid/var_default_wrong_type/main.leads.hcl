api {
  sandbox = true
}
variable "max" {
  type    = number
  default = "many" # ERROR: is not a valid number
}
search "cto" {
  keywords = "CTO"
}
