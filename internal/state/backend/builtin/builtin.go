// Package builtin registers the backends leadsync is built with. Importing
// it (cli does; tests that load configurations with a backend block do
// too) fills the registry of internal/state/backend.
//
// A new backend is one package with a backend.Definition, one line below,
// and backendtest.Run in its tests.
package builtin

import (
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/local"
	"github.com/leadsync/leadsync/internal/state/pg"
)

func init() {
	backend.Register(local.Definition) // the default: the state file, without a block
	backend.Register(pg.Definition)    // backend "pg"
}
