api {
  sandbox = true
}
profile "founder" {
  profile_url = "https://network.example/profile/${format("%04097d", 0)}" # ERROR: profile_url is 4,129 characters long; at most 4,096 are allowed
}
