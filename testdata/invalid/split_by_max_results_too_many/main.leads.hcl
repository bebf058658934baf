api {
  sandbox = true
}
search "engineers" {
  keywords    = "Engineer"
  max_results = 100001 # ERROR: max_results must be from 1 to 100000 with split_by; got 100001.
  split_by    = ["industry_filter"]
}
