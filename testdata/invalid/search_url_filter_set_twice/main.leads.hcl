api {
  sandbox = true
}
search "de" {
  search_url     = "https://network.example/search?keywords=Engineer&countryFilter=Germany"
  country_filter = ["Austria"] # ERROR: country_filter is set here and as countryFilter in the query of search_url (main.leads.hcl:5)
}
