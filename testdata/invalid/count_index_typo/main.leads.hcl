api {
  sandbox = true
}
search "cto" {
  count    = 2
  keywords = "CTO ${count.idx}" # ERROR: count has one attribute: count.index
}
