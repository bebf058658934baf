leadsync {
  retention = "six months" # ERROR: Invalid duration
}
api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}
