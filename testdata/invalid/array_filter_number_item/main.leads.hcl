api {
  sandbox = true
}
search "cto" {
  keywords        = "CTO"
  language_filter = ["German", 7] # ERROR: item 2 is a number
}
