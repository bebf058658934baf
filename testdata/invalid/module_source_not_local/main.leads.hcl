api {
  sandbox = true
}

module "dach" {
  source = "github.com/acme/personas//cto" # ERROR: leadsync reads modules from local folders only
}
