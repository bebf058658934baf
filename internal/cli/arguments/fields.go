package arguments

import "github.com/spf13/pflag"

// FieldsCachePath is where `leadsync fields --refresh` caches the live
// catalog, relative to the working folder: catalog.CachePath, named here
// for the flag's help because this package imports no package that reads
// files (a test of cli checks that the two agree).
const FieldsCachePath = ".leadsync/fields.json"

// Fields is the command line of `leadsync fields`.
type Fields struct {
	// Vars load the configuration, which only --refresh needs (for the
	// service to call).
	Vars Vars
	// Refresh reads the catalog from the service and caches it.
	Refresh bool
	View    ViewType
}

// FieldsFlags are the flags of fields as given.
type FieldsFlags struct {
	Vars    Vars
	Refresh bool
	JSON    bool
}

// Register declares the flags of fields on fs.
func (fl *FieldsFlags) Register(fs *pflag.FlagSet) {
	fs.BoolVar(&fl.Refresh, "refresh", false, "fetch the list from the service and cache it in "+FieldsCachePath)
	fs.BoolVar(&fl.JSON, "json", false, "print the catalog as one JSON object")
	fl.Vars.Register(fs)
}

// ParseFields checks the command line of fields.
func ParseFields(fl FieldsFlags, args []string) (*Fields, error) {
	if err := noArgs("leadsync fields", args); err != nil {
		return nil, err
	}
	return &Fields{Vars: fl.Vars, Refresh: fl.Refresh, View: view(fl.JSON)}, nil
}
