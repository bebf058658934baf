api {
  sandbox = true
}

module "market" {
  for_each = toset(["de", "at"])
  source   = "./persona"
}
