api {
  sandbox = true
}
# 101 × 100 = 10,100 cities: refused before any instance is made.
search "cto" {
  for_each = toset([for p in setproduct(range(101), range(100)) : "${p[0]}-${p[1]}"]) # ERROR: for_each gives 10,100 instances; at most 10,000 are allowed
  keywords = "CTO"
  city     = each.value
}
