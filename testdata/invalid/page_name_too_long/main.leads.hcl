api {
  sandbox = true
}
profile "founder" {
  page_name = format("Max_%0200d", 0) # ERROR: page_name is 204 characters long; at most 200 are allowed
}
