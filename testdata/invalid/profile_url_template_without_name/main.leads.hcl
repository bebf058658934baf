api {
  sandbox = true
}
leadsync {
  profile_url_template = "https://network.example/profile/" # ERROR: must contain {pageName}
}
search "cto" {
  keywords = "CTO"
}
