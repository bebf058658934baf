# Quickstart: two searches against the built-in sandbox (no key needed),
# one enrichment and one workbook to hand to marketing.
#
#   leadsync plan  --chdir examples/quickstart
#   leadsync apply --chdir examples/quickstart --auto-approve
#
# At most 2 searches + 8 enrichments: about 10 calls at 1 call per second.
# Then open examples/quickstart/out/quickstart.xlsx: the CTOs of Berlin with
# their e-mails, everyone found, and a Summary of what was fetched.

leadsync {
  # Profile links in the workbook: the network's profile address with each
  # person's page name filled in.
  profile_url_template = "https://network.example/profile/{pageName}"
}

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

# People are enriched in the order of from: the CTOs first, then engineers
# while the limit lasts.
enrich "contacts" {
  from  = [search.cto_berlin, search.engineers]
  where = lead.company != ""
  limit = 8
}

export "quickstart" {
  path = "out/quickstart.xlsx"

  sheet "CTOs" {
    from    = [search.cto_berlin]
    columns = ["fullName", "title", "company", "location", "email", "validationStatus", "companyDomain", "profileUrl"]
  }

  sheet "All leads" {
    from    = [search.cto_berlin, search.engineers]
    columns = ["fullName", "title", "company", "location", "email", "validationStatus", "profileUrl", "foundIn", "firstSeen"]
  }
}
