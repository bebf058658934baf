api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
  city     = ["Berlin"] # ERROR: city must be a string; got a list of strings
}
