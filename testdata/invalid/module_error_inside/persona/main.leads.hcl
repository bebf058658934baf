search "cto" {
  keyword = "CTO" # ERROR: In module.market["at"], module.market["de"] (the module block at main.leads.hcl:5).
}

output "ctos" {
  value = [search.cfo] # ERROR: No search block named "cfo" is declared.
}
