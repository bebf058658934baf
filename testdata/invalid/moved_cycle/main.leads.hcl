api {
  sandbox = true
}

search "c" {
  keywords = "CTO"
}

moved { # ERROR: These moved blocks lead back to where they start
  from = search.a
  to   = search.b
}

moved {
  from = search.b
  to   = search.a
}

moved {
  from = search.x
  to   = search.c
}
