# The CTO persona: what a market needs to find and reach its CTOs. The
# variables are the module's inputs, given by each module block that uses
# it; the outputs are what the caller can list in from.

variable "market" {
  type        = string
  description = "A short name of the market: its workbook is out/<market>-ctos.xlsx."
  validation {
    condition     = can(regex("^[a-z][a-z0-9-]*$", var.market))
    error_message = "market is a short lower-case name, like \"dach\"."
  }
}

variable "cities" {
  type = list(string)
}

variable "countries" {
  type = list(string)
}

variable "limit" {
  type        = number
  default     = 6
  description = "At most this many people enriched for the market, in total."
}

search "cto" {
  for_each       = toset(var.cities)
  keywords       = "CTO"
  city           = each.value
  country_filter = var.countries
  level_filter   = ["Executive"]
  max_results    = 20
}

enrich "contacts" {
  from  = [search.cto]
  where = lead.company != ""
  limit = var.limit
}

export "market" {
  path = "out/${var.market}-ctos.xlsx"

  sheet "CTOs" {
    from    = [search.cto]
    columns = ["fullName", "title", "company", "location", "email", "validationStatus", "companyDomain", "profileUrl"]
  }
}

output "ctos" {
  description = "Every CTO the market's searches find."
  value       = [search.cto]
}

output "contacts" {
  value = enrich.contacts
}
