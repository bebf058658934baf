api {
  sandbox = true
}
leadsync {
  statepath = "x.json" # ERROR: Did you mean "state_path"?
}
search "cto" {
  keywords = "CTO"
}
