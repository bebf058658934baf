leadsync {
  budget { # ERROR: A budget sets credits_per_month, requests_per_month or both
    enforce = "soft"
  }
}
api {
  sandbox = true
}
