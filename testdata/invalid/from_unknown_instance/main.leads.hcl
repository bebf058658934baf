api {
  sandbox = true
}
search "cto" {
  for_each = toset(["Berlin", "Hamburg"])
  keywords = "CTO"
  city     = each.value
}

enrich "contacts" {
  from = [search.cto["Paris"]] # ERROR: search.cto has no instance "Paris"; its keys are "Berlin", "Hamburg".
}
