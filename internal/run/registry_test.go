package run

// The backends are registered by the program (cli imports builtin); the
// tests need them too (a saved plan is never written over a backend's own
// files, which the registry lists).
import _ "github.com/leadsync/leadsync/internal/state/backend/builtin"
