api {
  sandbox = true
}
locals {
  kw = "CTO"
}

search "cto" {
  keywords = local.kws # ERROR: No local value "kws" is declared in a locals block. Did you mean "kw"?
}
