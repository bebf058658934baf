api {
  sandbox = true
}

module "m" {
  for_each = { de = 2, at = -1, ch = -5 }
  source   = "./mod"
  cities   = ["Berlin"]
  limit    = each.value # ERROR: In module.m["at"], module.m["ch"] (the module block at main.leads.hcl:5).
}
