api {
  sandbox = true
}

profile "cto" {
  page_name = "Max_Mustermann"
}

moved { # ERROR: From is a search and to is a profile: a search moves to a search, a profile to a profile, an import block to an import block, an enrich block to an enrich block, a track block to a track block, a module to a module.
  from = search.cto
  to   = profile.cto
}

moved { # ERROR: From is a module and to is a profile: a search moves to a search
  from = module.cto
  to   = profile.cto
}
