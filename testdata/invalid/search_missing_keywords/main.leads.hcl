api {
  sandbox = true
}
search "cto" { # ERROR: Missing keywords or search_url
  city = "Berlin"
}
