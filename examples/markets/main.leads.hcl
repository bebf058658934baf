# Markets: one persona, written once as a module, used for two markets.
#
#   leadsync plan  --chdir examples/markets
#   leadsync apply --chdir examples/markets --auto-approve
#
# The module in personas/cto is the CTO persona: a search per city, the
# enrichment of the CTOs found (with its own limit per market) and a
# workbook per market. Each module block below gives it a market; the
# addresses carry the module's name: module.dach.search.cto["Berlin"].
# About 4 searches and up to 10 enrichments at 1 call per second.

leadsync {
  profile_url_template = "https://network.example/profile/{pageName}"
}

api {
  sandbox = true
}

module "dach" {
  source    = "./personas/cto"
  market    = "dach"
  cities    = ["Berlin", "Wien"]
  countries = ["Germany", "Austria"]
}

module "uk" {
  source    = "./personas/cto"
  market    = "uk"
  cities    = ["London", "Manchester"]
  countries = ["United Kingdom"]
  limit     = 4
}

# One workbook across both markets: the outputs of the two modules.
export "all_markets" {
  path = "out/all-markets.xlsx"

  sheet "All CTOs" {
    from    = [module.dach.ctos, module.uk.ctos]
    columns = ["fullName", "title", "company", "location", "email", "validationStatus", "foundIn"]
  }
}
