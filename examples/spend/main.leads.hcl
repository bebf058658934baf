# Spend credits only where they add value: the people a customer list and
# a do-not-contact list name are never enriched, the people another tool
# already found e-mails for are imported at no credit, and a budget holds
# the month's spending. Against the built-in sandbox (no key needed).
#
#   leadsync plan  --chdir examples/spend
#   leadsync apply --chdir examples/spend --auto-approve
#
# README.md shows the plans this prints.

leadsync {
  profile_url_template = "https://network.example/profile/{pageName}"

  # Across runs, teammates and workspaces sharing the API account.
  budget {
    credits_per_month = 200
    enforce           = "hard"
  }
}

api {
  sandbox = true
}

search "ctos" {
  keywords       = "CTO"
  country_filter = ["Germany"]
  max_results    = 20
}

# The CRM's customers, as a European Excel saves them (";", legal forms
# written differently from the network's: "Rheinblick Software AG" is the
# network's "Rheinblick Software GmbH").
exclude "customers" {
  file   = "crm/customers.csv"
  column = "Kunde"
  by     = "company"
}

# People who asked not to be contacted, by their profile address in any
# form (with or without https://, www., a query, another path).
exclude "dnc" {
  file   = "crm/do-not-contact.csv"
  column = "Profile"
  by     = "profile_url"
}

# What another tool exported last month: e-mails already paid for.
import "evaboot" {
  file = "legacy/evaboot-2026-10.csv"
  columns = {
    profile_url       = "LinkedIn URL"
    email             = "Email"
    validation_status = "Email status"
    company_domain    = "Domain"
    enriched_at       = "Exported"
  }
}

enrich "contacts" {
  from  = [search.ctos]
  limit = 10
}

export "spend" {
  path = "out/spend.xlsx"

  sheet "CTOs" {
    from    = [search.ctos]
    columns = ["fullName", "title", "company", "email", "validationStatus", "profileUrl"]
  }

  sheet "From Evaboot" {
    from    = [import.evaboot]
    columns = ["fullName", "company", "email", "validationStatus", "enrichedAt"]
  }
}
