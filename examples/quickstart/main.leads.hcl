# Quickstart: a few searches against the built-in sandbox (no key needed),
# one enrichment and one spreadsheet.
#
#   leadsync plan  --chdir examples/quickstart
#   leadsync apply --chdir examples/quickstart --auto-approve
#
# At most 2 searches + 8 enrichments: about 10 calls at 1 call per second.

api {
  sandbox = true
}

search "cto_berlin" {
  keywords       = "CTO"
  city           = "Berlin"
  country_filter = ["Germany"]
  max_results    = 20
}

search "engineers" {
  keywords        = "Engineer"
  industry_filter = ["Internet and IT"]
  level_filter    = ["Senior", "Manager"]
  max_results     = 20
}

enrich "contacts" {
  from  = [search.cto_berlin, search.engineers]
  where = lead.company != ""
  limit = 8
}

export "quickstart" {
  path = "out/quickstart.xlsx"

  sheet "CTOs" {
    from    = [search.cto_berlin]
    columns = ["fullName", "title", "company", "location", "email", "validationStatus", "companyDomain"]
  }

  sheet "All leads" {
    from = [search.cto_berlin, search.engineers]
  }
}
