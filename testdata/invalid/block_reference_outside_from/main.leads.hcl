api {
  sandbox = true
}
search "a" {
  keywords = "CTO"
}

search "b" {
  keywords = search.a.keywords # ERROR: search.a can be referred to only in the from list
}
