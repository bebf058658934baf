api {
  sandbox = true
}

module "m" {
  source = "./m"
}
