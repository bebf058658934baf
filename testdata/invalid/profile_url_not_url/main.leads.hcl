api {
  sandbox = true
}
profile "founder" {
  profile_url = "Max_Mustermann" # ERROR: profile_url must be the absolute http(s) address of a member profile
}
