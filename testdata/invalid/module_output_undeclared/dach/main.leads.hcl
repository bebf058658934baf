search "cto" {
  keywords = "CTO"
}

output "ctos" {
  value = search.cto
}
