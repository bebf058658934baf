api {
  sandbox = true
}
profile "founder" {
  page_name   = "Max_Mustermann"
  profile_url = "https://network.example/profile/Max_Mustermann" # ERROR: Both page_name and profile_url
}
