search "cto" {
  for_each        = var.cities
  keywords        = "CTO"
  city            = each.value
  industry_filter = local.tech_exec.industry_filter
  level_filter    = local.tech_exec.level_filter
  country_filter  = local.dach
  max_results     = 100
  refresh         = "14d"
}

search "head_of_sales" {
  for_each          = var.cities
  keywords          = "Head of Sales"
  city              = each.value
  discipline_filter = ["Sales and commerce"]
  language_filter   = ["German", "English"]
  max_results       = 50
  refresh           = "30d"
}

search "consultants" {
  search_url  = "https://network.example/search?keywords=Strategy%20Consultant&city=Berlin&countryFilter=Germany"
  max_results = 50
  refresh     = "2w"
}

profile "founder" {
  for_each  = var.founders
  page_name = each.value
  refresh   = "90d"
}

profile "advisor" {
  profile_url = "https://network.example/profile/Erika_Musterfrau"
}
