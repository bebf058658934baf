api {
  sandbox = true
}
search "engineers" {
  keywords    = "Engineer"
  max_results = 1000
  split_by = ["industry_filter", "level_filter",
  "industry_filter"] # ERROR: Duplicate split_by dimension: "industry_filter" is named twice in split_by
}
