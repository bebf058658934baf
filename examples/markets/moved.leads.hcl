# The DACH market was first written flat (before/main.leads.hcl). These
# moved blocks carry what its state holds into the module: its searches
# and everything they found, and its enrich block with what it enriched
# (its limit keeps counting), so that nothing runs or is paid for again.
# Like Terraform's, they stay: a state still at the old addresses (another
# working copy, another workspace) is moved by its next apply; a state
# already moved is left as it is.

moved {
  from = search.cto
  to   = module.dach.search.cto
}

moved {
  from = enrich.contacts
  to   = module.dach.enrich.contacts
}
