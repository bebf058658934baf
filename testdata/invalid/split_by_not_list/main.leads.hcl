api {
  sandbox = true
}
search "engineers" {
  keywords    = "Engineer"
  max_results = 1000
  split_by    = "industry_filter" # ERROR: split_by takes a list of strings, like ["industry_filter", "level_filter"]; got a string.
}
