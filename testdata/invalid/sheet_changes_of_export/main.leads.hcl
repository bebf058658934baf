api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}
track "champions" {
  from = [search.cto]
}
export "crm" {
  path = "out/crm.xlsx"
  sheet "Leads" {
    from = [search.cto]
  }
}
export "changes" {
  path = "out/changes.xlsx"
  sheet "Job changes" {
    changes = [track.champions, export.crm] # ERROR: an export writes files and makes no call, so it sees no change
  }
}
