api {
  sandbox = true
}
search "cto" {
  keywords     = "CTO"
  level_filter = ["Boss"] # ERROR: Valid values: "Professional/Experienced", "Manager", "Executive", "Senior", "Entry", "Student/Intern".
}
