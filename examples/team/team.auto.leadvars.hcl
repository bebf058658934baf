cities = ["Berlin", "Hamburg", "Munich"]

founders = {
  max   = "Max_Mustermann"
  erika = "Erika_Musterfrau"
}

max_credits = 150
