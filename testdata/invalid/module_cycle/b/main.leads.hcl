module "again" {
  source = "../a" # ERROR: Module cycle: module.a.module.b.module.again calls the module in a, which is already being read: a -> b -> a.
}
