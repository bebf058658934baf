api {
  sandbox = true
}

search "cto" {
  keywords = "CTO ${path.cwd}" # ERROR: path has two attributes
}
