package config

// The backends are registered by the program (cli imports builtin); the
// tests of backend blocks need them too.
import _ "github.com/leadsync/leadsync/internal/state/backend/builtin"
