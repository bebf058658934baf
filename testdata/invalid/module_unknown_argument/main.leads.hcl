api {
  sandbox = true
}

module "dach" {
  source = "./dach"
  citys  = ["Berlin"] # ERROR: module.dach (dach) has no variable "citys". Did you mean "cities"?
  cities = ["Berlin"]
}
