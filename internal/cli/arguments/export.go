package arguments

import "github.com/spf13/pflag"

// Export is the command line of `leadsync export`.
type Export struct {
	Vars Vars
	// BOM starts CSV files with a UTF-8 byte order mark.
	BOM  bool
	View ViewType
}

// ExportFlags are the flags of export as given.
type ExportFlags struct {
	Vars Vars
	BOM  bool
	JSON bool
}

// Register declares the flags of export on fs.
func (fl *ExportFlags) Register(fs *pflag.FlagSet) {
	fs.BoolVar(&fl.BOM, "bom", false, "start CSV files with a UTF-8 byte order mark (for Excel)")
	fs.BoolVar(&fl.JSON, "json", false, "print what was written as one JSON object")
	fl.Vars.Register(fs)
}

// ParseExport checks the command line of export.
func ParseExport(fl ExportFlags, args []string) (*Export, error) {
	if err := noArgs("leadsync export", args); err != nil {
		return nil, err
	}
	return &Export{Vars: fl.Vars, BOM: fl.BOM, View: view(fl.JSON)}, nil
}
