search "cto" {
  keywords = "CTO"
}

track "champions" {
  from = [search.cto]
}

output "champions" {
  value = track.champions
}
