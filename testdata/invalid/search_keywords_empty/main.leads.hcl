api {
  sandbox = true
}
search "cto" {
  keywords = "" # ERROR: keywords must not be empty
}
