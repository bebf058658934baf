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
profile "founder" {
  page_name = "Max_Mustermann"
}
track "champions" {
  from = [
    profile.founder,
    search.cto, # WARNING: search.cto has no instances (its for_each is empty or its count is 0), so track.champions watches nobody of it
  ]
}
