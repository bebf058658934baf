# A team's lead lists: CTOs and heads of sales in several cities, a few known
# founders, enrichment of the decision makers, and two spreadsheets.
# Variable values are in team.auto.leadvars.hcl; the key comes from
# LEADSYNC_API_KEY.
#
# To try it against `leadsync sandbox` (in another terminal) without an
# edit, LEADSYNC_BASE_URL replaces base_url:
#
#   export LEADSYNC_BASE_URL=http://127.0.0.1:8787 LEADSYNC_API_KEY=sandbox-key
#   leadsync plan  --chdir examples/team
#   leadsync apply --chdir examples/team --auto-approve

leadsync {
  state_path           = ".leadsync/state.json"
  profile_url_template = "https://network.example/profile/{pageName}"
}

api {
  base_url    = "https://api.example.com"
  max_credits = var.max_credits
  timeout     = "60s"
}
