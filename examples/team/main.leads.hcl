# A team's lead lists: CTOs and heads of sales in several cities, a few known
# founders, enrichment of the decision makers, and two spreadsheets.
# Variable values are in team.auto.leadvars.hcl; the key comes from
# LEADSYNC_API_KEY.

leadsync {
  state_path           = ".leadsync/state.json"
  profile_url_template = "https://network.example/profile/{pageName}"
}

api {
  base_url    = "https://api.example.com"
  max_credits = var.max_credits
  timeout     = "60s"
}
