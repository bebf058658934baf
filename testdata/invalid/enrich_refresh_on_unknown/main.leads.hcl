api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}
enrich "contacts" {
  from       = [search.cto]
  refresh_on = ["company", "emial"] # ERROR: refresh_on takes "company" and "title"; "emial" is not one of them
}
