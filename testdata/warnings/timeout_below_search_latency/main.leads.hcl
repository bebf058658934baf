api {
  sandbox = true
  timeout = "1s" # WARNING: With timeout = "1s" a slower search is abandoned and tried again
}
search "cto" {
  keywords = "CTO"
}
