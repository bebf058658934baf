api {
  base_url    = "http://api.example.com" # ERROR: uses http://
  max_credits = -5 # ERROR: max_credits must be at least 1
}

search "cto" {
  keywords     = "CTO"
  level_filter = ["Exec"] # ERROR: Did you mean "Executive"?
  max_results  = 500 # ERROR: max_results above 300 needs split_by
}

enrich "contacts" {
  from  = [search.cto, profile.nobody] # ERROR: No profile block named "nobody" is declared.
  where = lead.Company != "" # ERROR: Unknown lead field
}
