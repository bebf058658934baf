api {
  sandbox = true
}

module "a" {
  source = "./a"
}
