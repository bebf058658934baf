api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}
export "crm" {
  path = "out/crm.xlsx"
  sheet "CTOs" {
    from = [search.cto]
  }
}
track "champions" {
  from = [search.cto, export.crm] # ERROR: from lists the blocks whose people the track watches: search, profile, import and enrich blocks
}
track "colleagues" {
  from = [track.champions] # ERROR: A track cannot watch another track's people: list that track's sources here
}
