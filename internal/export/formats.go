package export

import (
	"fmt"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/exportformat"
)

// writer writes the files of one export in one format, from what the job
// has collected: the rows and the table of each sheet block (j.sheets),
// the Summary (j.summary), the warnings so far. It writes each file under
// a temporary name (createAtomic) and renames it into place only when
// every file of the export is complete, and returns what it wrote.
type writer interface {
	write(j *job) ([]Written, error)
}

// writers are the writers of the formats of exportformat, by the format's
// name: the one place export chooses by format. A new format is a row in
// exportformat's table and its writer here (TestEveryFormatHasAWriter).
var writers = map[string]writer{
	"xlsx": xlsxWriter{},
	"csv":  csvWriter{},
}

// writerFor returns the writer of exp's format: exp.Format, or else the
// format its path's extension chooses (an Export built by hand).
func writerFor(exp *config.Export) (writer, error) {
	name := exp.Format
	if name == "" {
		f, _ := exportformat.ForPath(exp.Path)
		name = f.Name
	}
	if w := writers[name]; w != nil {
		return w, nil
	}
	return nil, fmt.Errorf("%s: path %q: unknown format %q; the path must end in %s", exp.Address, exp.Path, name, exportformat.Extensions())
}
