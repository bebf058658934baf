api {
  sandbox = true
}
search "cto" {
  keywords = uper("cto") # ERROR: Call to unknown function
}
