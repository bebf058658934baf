api {
  sandbox = true
}

search "cto" {
  keywords = "CTO"
}

search "cfo" {
  keywords = "CFO"
}

moved {
  from = search.old
  to   = search.cto
}

moved { # ERROR: moves search.old to search.cto, and this one moves it to search.cfo
  from = search.old
  to   = search.cfo
}

moved { # ERROR: moves search.old to search.cto, and this one moves search.older there too
  from = search.older
  to   = search.cto
}
