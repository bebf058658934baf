api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}
track "cto" {
  from  = [search.cto]
  every = "6h" # WARNING: Track reads more than once a day
}
