api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}
export "changes" {
  path = "out/changes.xlsx"
  sheet "Job changes" {
    changes = [search.cto]
    from    = [search.cto] # ERROR: A sheet lists changes (changes = [...]), one row per change
    since   = "30d"
  }
}
