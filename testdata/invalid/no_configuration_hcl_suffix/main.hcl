api {
  sandbox = true
}
