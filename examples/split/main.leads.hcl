# Every engineer in Germany: more than the network's cap of 300 results for
# one search, so split_by splits the search into sub-searches by industry,
# and any industry still at the cap by career level, until each part is
# under the cap. Against the built-in sandbox (no key needed):
#
#   leadsync plan  --chdir examples/split
#   leadsync apply --chdir examples/split --auto-approve
#
# The plan bounds the calls before anything is spent (the whole tree:
# 1 + 23 industries + 23 x 6 levels); apply says whether the result is
# complete or which sub-searches are still at the cap.

leadsync {
  # The Profile column: the network's profile address with each person's
  # page name filled in.
  profile_url_template = "https://network.example/profile/{pageName}"
}

api {
  sandbox     = true
  parallelism = 4
}

search "engineers_de" {
  keywords       = "Engineer"
  country_filter = ["Germany"]
  max_results    = 5000
  split_by       = ["industry_filter", "level_filter"]
}

export "engineers" {
  path = "out/engineers-de.xlsx"

  sheet "Engineers in Germany" {
    from    = [search.engineers_de]
    columns = ["fullName", "title", "company", "location", "profileUrl"]
  }
}
