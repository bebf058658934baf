package local

import (
	"database/sql/driver"
	"fmt"

	sqlite "modernc.org/sqlite"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/sqlstate"
)

// The page key of a page name (state.PageKey) as a SQL function of every
// connection this process opens: the migration to schema version 4 fills
// the people's page_key column with it, so that the stored keys are Go's
// lower case (SQLite's lower() lowers ASCII only).
func init() {
	if err := sqlite.RegisterDeterministicScalarFunction(sqlstate.PageKeyFunc, 1, pageKeySQL); err != nil {
		panic("leadsync: registering " + sqlstate.PageKeyFunc + ": " + err.Error())
	}
}

// pageKeySQL is the function's body: the key of a text (or of a blob's
// bytes, as a text); NULL has the key "".
func pageKeySQL(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	switch v := args[0].(type) {
	case nil:
		return "", nil
	case string:
		return state.PageKey(v), nil
	case []byte:
		return state.PageKey(string(v)), nil
	}
	return nil, fmt.Errorf("%s: a page name is a text, not %T", sqlstate.PageKeyFunc, args[0])
}
