api {
  sandbox = true
}
search "cto" {
  count    = -1 # ERROR: count must be from 0 to 10000
  keywords = "CTO"
}
