api {
  sandbox = true
}

variable "dir" {
  default = "./cto"
}

module "dach" {
  source = var.dir # ERROR: source must be a literal string
}
