api {
  sandbox = true
}
search "engineers" {
  keywords    = "Engineer"
  max_results = 1000
  split_by    = [
    "city", # ERROR: split_by names a text filter: city is a text filter: it has no list of values to split across. split_by takes array filters: discipline_filter, industry_filter
  ]
}
