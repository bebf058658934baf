variable "cities" {
  type    = list(string)
  default = []
}
api {
  sandbox = true
}
search "cto" {
  for_each = toset(var.cities)
  keywords = "CTO"
  city     = each.value
}
enrich "berlin" {
  from = [search.cto["Berlin"]] # ERROR: search.cto has no instance "Berlin": it has no instances (its for_each is empty)
}
