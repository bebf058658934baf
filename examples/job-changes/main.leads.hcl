# Job changes: a list of champions kept current while people change jobs.
# The built-in sandbox's network moves on in epochs (docs/sandbox.md); the
# walk-through with the real output is docs/lists.md.
#
#   export LEADSYNC_SANDBOX_DRIFT=0.3
#   LEADSYNC_SANDBOX_EPOCH=0 leadsync apply --chdir examples/job-changes --auto-approve
#   LEADSYNC_SANDBOX_EPOCH=0 leadsync apply --chdir examples/job-changes --auto-approve
#   LEADSYNC_SANDBOX_EPOCH=1 leadsync plan  --chdir examples/job-changes --replace track.champions
#   LEADSYNC_SANDBOX_EPOCH=1 leadsync apply --chdir examples/job-changes --replace track.champions --auto-approve

leadsync {
  profile_url_template = "https://network.example/profile/{pageName}"
}

api {
  sandbox = true
}

search "cto" {
  keywords       = "CTO"
  country_filter = ["Germany"]
  max_results    = 25
}

profile "founder" {
  page_name = "Max_Mustermann"
}

# The contacts: enriched once, and again when their company changes (their
# e-mail then belongs to the old employer).
enrich "cto_contacts" {
  from       = [search.cto]
  limit      = 10
  refresh_on = ["company"]
}

# Whose jobs to watch: one profile read per person every 30 days (requests,
# no credits).
track "champions" {
  from  = [enrich.cto_contacts, profile.founder]
  every = "30d"
}

export "crm" {
  path = "out/job-changes.xlsx"

  # One row per change seen: person, field, before, after, when, seen by.
  sheet "Job changes" {
    changes = [track.champions, search.cto]
    since   = "30d"
  }

  # Only the people marketing can reach.
  sheet "Reachable CTOs" {
    from    = [search.cto]
    where   = person.validationStatus == "valid"
    columns = ["fullName", "title", "company", "email", "profileUrl"]
  }
}
