variable "cities" {
  description = "Cities to search for decision makers in."
  type        = set(string)
  default     = ["Berlin"]
}

variable "founders" {
  description = "Page names of founders to follow, by a short key."
  type        = map(string)
  default     = {}
}

variable "max_credits" {
  description = "Enrich credits one run may spend at most."
  type        = number
  default     = 200

  validation {
    condition     = var.max_credits > 0 && var.max_credits <= 1000
    error_message = "max_credits must be between 1 and 1000."
  }
}

variable "enrich_limit" {
  type    = number
  default = 50
}

locals {
  tech_exec = {
    industry_filter = ["Internet and IT", "Telecommunication"]
    level_filter    = ["Executive", "Manager"]
  }
  dach = ["Germany", "Austria", "Switzerland"]
}
