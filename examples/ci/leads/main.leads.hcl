# The lead lists of a team, planned and applied by CI
# (.github/workflows/leadsync.yml). State is shared in PostgreSQL: the
# connection string comes from LEADSYNC_PG_CONN_STR, a secret like the API
# key (LEADSYNC_API_KEY), never from this file.
#
# With the local state instead (the default, .leadsync/state.json), every
# CI run starts from an empty state: it would run every search and enrich
# every person again, paying twice, and two runs would not see each
# other's lock. A team shares its state, or keeps it on one machine.

leadsync {
  retention = "180d" # people no search has seen for six months leave the state
  backend "pg" {}    # the team's shared state; see docs/state.md
  # Profile links in the spreadsheets: the network's profile address with
  # each person's page name filled in (without it, the Profile column of a
  # sheet of searches stays empty; validate warns).
  profile_url_template = "https://network.example/profile/{pageName}"
}

api {
  base_url    = "https://api.example.com"
  max_credits = 200
}

search "cto" {
  for_each       = toset(["Berlin", "Hamburg", "München"])
  keywords       = "CTO"
  city           = each.value
  country_filter = ["Germany"]
  level_filter   = ["Executive"]
  max_results    = 50
  refresh        = "30d"
}

enrich "contacts" {
  from  = [search.cto]
  where = lead.company != ""
  limit = 100
}

export "crm" {
  path = "out/ctos.xlsx"
  sheet "New this month" {
    from     = [search.cto]
    only_new = true
    columns  = ["fullName", "title", "company", "location", "email", "validationStatus", "profileUrl", "firstSeen"]
  }
  sheet "All CTOs" {
    from   = [search.cto]
    labels = { email = "Work e-mail" }
  }
}
