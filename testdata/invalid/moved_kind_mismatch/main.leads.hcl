api {
  sandbox = true
}

profile "cto" {
  page_name = "Max_Mustermann"
}

moved { # ERROR: from is a search and to is a profile
  from = search.cto
  to   = profile.cto
}

moved { # ERROR: from is a module and to is a profile
  from = module.cto
  to   = profile.cto
}
