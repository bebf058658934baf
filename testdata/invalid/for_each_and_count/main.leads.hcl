api {
  sandbox = true
}
search "cto" {
  for_each = toset(["Berlin"])
  count    = 2 # ERROR: Both for_each and count
  keywords = "CTO"
}
