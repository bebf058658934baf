api {
  sandbox = true
}
search "engineers" {
  keywords    = "Engineer"
  max_results = 1000
  split_by    = ["industry_filter", "levels_filter"] # ERROR: Unknown split_by dimension: "levels_filter" is not an array filter of the service (the built-in field list). Did you mean "level_filter"?
}
