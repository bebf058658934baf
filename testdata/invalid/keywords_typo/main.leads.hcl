api {
  sandbox = true
}
# Only the root cause: the misspelt keywords, not also "Missing keywords".
search "cto" {
  keyword = "CTO" # ERROR: A search block has no argument "keyword". Did you mean "keywords"?
}
