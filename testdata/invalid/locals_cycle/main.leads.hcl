api {
  sandbox = true
}
locals {
  a = local.b # ERROR: local.a -> local.b -> local.a
  b = local.a
}
search "cto" {
  keywords = "CTO"
}
