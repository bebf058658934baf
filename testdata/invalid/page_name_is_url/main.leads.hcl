api {
  sandbox = true
}
profile "founder" {
  page_name = "https://network.example/profile/Max" # ERROR: for a full address use profile_url
}
