api {
  sandbox = true
}
profile "founder" {
  pagename = "Max_Mustermann" # ERROR: A profile block has no argument "pagename". Did you mean "page_name"?
}
