api {
  sandbox = true
}
profile "founder" { # ERROR: Missing page_name or profile_url
  refresh = "30d"
}
