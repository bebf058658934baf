api {
  sandbox     = true
  parallelism = -2 # ERROR: parallelism must be from 1 to 64
}
search "cto" {
  keywords = "CTO"
}
