api {
  sandbox = true
}
search "it" {
  search_url = "https://network.example/search?keywords=Engineer&industryFiltr=Consulting" # WARNING: Did you mean "industryFilter" for "industryFiltr"?
}
