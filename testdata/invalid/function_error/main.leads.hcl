api {
  sandbox = true
}
search "cto" {
  keywords = file("missing.txt") # ERROR: no file "missing.txt" in the configuration directory
}
