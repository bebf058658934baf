# No profile_url_template and no profile read: the Profile column of the
# first sheet would stay empty. The second sheet reads a profile, whose
# own address fills the column.
api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}
profile "founder" {
  page_name = "Max_Mustermann"
}
export "crm" {
  path = "out/crm.xlsx"
  sheet "CTOs" {
    from    = [search.cto]
    columns = ["fullName", "profileUrl"] # WARNING: Sheet "CTOs" of export.crm shows profileUrl (the "Profile" column), but the leadsync block sets no profile_url_template
  }
  sheet "Founder" {
    from    = [profile.founder]
    columns = ["fullName", "profileUrl"]
  }
}
