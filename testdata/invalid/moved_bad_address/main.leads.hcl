api {
  sandbox = true
}

search "cto" {
  keywords = "CTO"
}

enrich "contacts" {
  from = [search.cto]
}

moved {
  from = "search.old" # ERROR: Write it without quotes.
  to   = search.cto
}

moved {
  from = export.old # ERROR: export blocks have none in state
  to   = export.new # ERROR: export blocks have none in state
}

moved {
  from = enrich.old["x"] # ERROR: An enrich block has no instances; write enrich.old.
  to   = enrich.contacts
}

moved {
  from = search # ERROR: from is not an address: a moved block names a search, profile, import, enrich or track block, one instance of a search or profile, or a module
  to   = search.cto
}

moved { # ERROR: Missing required argument
  from = search.older
}
