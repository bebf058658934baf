leadsync {
  retention = "180d" # WARNING: People leave the state once no search has seen them for 180d, and search.cto, search.old never run again before that
}
api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}
search "fresh" {
  keywords = "CEO"
  refresh  = "30d"
}
search "old" {
  keywords = "CFO"
  refresh  = "365d"
}
