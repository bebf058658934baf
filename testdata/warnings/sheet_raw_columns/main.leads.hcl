api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}
search "cto_raw" {
  keywords = "CTO"
  raw      = true
}
profile "founder" {
  page_name = "Max_Mustermann"
}
export "marketing" {
  path = "out/leads.xlsx"
  sheet "Plain" {
    from    = [search.cto, profile.founder]
    columns = ["fullName", "workHistory", "photoUrl", "topSkills", "contactsCount"] # WARNING: Raw search results fill topSkills, contactsCount, but no search in this sheet's from (search.cto, profile.founder) sets raw = true
  }
  sheet "Raw" {
    from    = [search.cto_raw]
    columns = ["fullName", "topSkills", "contactsCount", "highlights"]
  }
}
