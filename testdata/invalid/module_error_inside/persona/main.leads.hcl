search "cto" {
  keyword = "CTO" # ERROR: A search block has no argument "keyword". Did you mean "keywords"?
}

output "ctos" {
  value = [search.cfo] # ERROR: In module.market["at"], module.market["de"] (the module block at main.leads.hcl:5).
}
