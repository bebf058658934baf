api {
  sandbox = true
}

module "dach" {
  source = "./dach"
}
