api {
  sandbox = true
}
search "de" {
  search_url = "https://network.example/search?keywords=Engineer&countryFilter=Deutschland" # ERROR: "Deutschland" is not one of the values the service accepts for countryFilter in the query of search_url
}
