leadsync {
  budget {
    credits_per_month = 2000
    enforce           = "strict" # ERROR: enforce is "hard" (plan and apply refuse to pass the budget) or "soft" (they warn); got "strict".
  }
}
api {
  sandbox = true
}
