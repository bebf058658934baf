# The markets example as it was first written, flat, for one market: the
# searches and the enrichment of the DACH CTOs. Applied once, then moved
# into the persona module of ../ (see ../moved.leads.hcl) without running a
# search or paying for an enrichment again:
#
#   leadsync apply --chdir examples/markets/before --auto-approve
#   cp -r examples/markets/before/.leadsync examples/markets/
#   leadsync plan --chdir examples/markets

api {
  sandbox = true
}

search "cto" {
  for_each       = toset(["Berlin", "Wien"])
  keywords       = "CTO"
  city           = each.value
  country_filter = ["Germany", "Austria"]
  level_filter   = ["Executive"]
  max_results    = 20
}

enrich "contacts" {
  from  = [search.cto]
  where = lead.company != ""
  limit = 6
}
