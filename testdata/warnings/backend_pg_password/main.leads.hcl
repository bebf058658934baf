leadsync {
  backend "pg" {
    conn_str = "postgres://leads:hunter2secret@db.example.com/leads" # WARNING: Database password written in the configuration
  }
}
api {
  sandbox = true
}
search "cto" {
  keywords = "CTO"
}
