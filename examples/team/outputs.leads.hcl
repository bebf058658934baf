enrich "decision_makers" {
  from    = [search.cto, search.head_of_sales, profile.founder]
  where   = lead.company != "" && !strcontains(lower(lead.title), "assistant")
  limit   = var.enrich_limit
  refresh = "180d"
}

export "marketing" {
  path = "out/decision-makers.xlsx"

  sheet "CTOs" {
    from    = [search.cto]
    columns = ["fullName", "title", "company", "location", "email", "validationStatus", "companyDomain", "profileUrl", "firstSeen"]
  }

  sheet "Sales" {
    from = [search.head_of_sales]
  }

  sheet "Founders" {
    from    = [profile.founder, profile.advisor]
    columns = ["fullName", "title", "company", "email", "profileUrl", "description"]
  }
}

export "crm" {
  path = "out/crm-import.csv"

  sheet "Leads" {
    from    = [search.cto, search.head_of_sales, search.consultants]
    columns = ["firstName", "lastName", "company", "title", "email", "companyDomain", "networkId"]
  }
}

# leadsync output shows what these hold in the state.
output "decision_makers" {
  description = "CTOs and heads of sales in the team's cities"
  value       = [search.cto, search.head_of_sales]
}

output "enriched" {
  description = "The decision makers with an e-mail"
  value       = [enrich.decision_makers]
}
