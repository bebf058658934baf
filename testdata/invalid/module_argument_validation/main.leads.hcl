api {
  sandbox = true
}

module "dach" {
  for_each = toset(["Berlin", ""])
  source   = "./dach"
  city     = each.value # ERROR: A city has a name.
}
