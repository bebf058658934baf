api {
  sandbox = true
}
search "engineers" {
  keywords       = "Engineer"
  country_filter = ["Germany"]
  split_by       = ["country_filter"] # WARNING: split_by splits nothing: search.engineers sets each dimension of split_by to a single value
}
