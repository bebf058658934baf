# Only the root cause: sandbox is not true or false; not also "Missing
# base_url", which sandbox = true would have made unnecessary.
api {
  sandbox = "yes" # ERROR: sandbox must be true or false; got a string
}
search "cto" {
  keywords = "CTO"
}
