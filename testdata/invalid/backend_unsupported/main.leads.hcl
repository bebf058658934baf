leadsync {
  backend "s3" { # ERROR: The backend "s3" is not supported
  }
}
api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}
