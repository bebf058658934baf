search "cto" {
  keywords = "CTO"
}

enrich "contacts" {
  from = [search.cto]
}

output "contacts" {
  value = enrich.contacts
}
