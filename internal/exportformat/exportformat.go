package exportformat

import (
	"path/filepath"
	"strings"
	"sync"
)

// Layout is which files a format writes for one export.
type Layout int

const (
	// Workbook is one file at the export's path, holding a Summary sheet
	// and one sheet per sheet block (XLSX).
	Workbook Layout = iota + 1
	// FilePerSheet is one file per sheet block (the export's path itself
	// when there is one block, <base>-<sheet-slug><ext> each when there
	// are several) plus a summary file, <base>.summary<ext> (CSV).
	FilePerSheet
)

// String names the layout.
func (l Layout) String() string {
	switch l {
	case Workbook:
		return "workbook"
	case FilePerSheet:
		return "file per sheet"
	}
	return "unknown layout"
}

// Format is one kind of file an export writes.
type Format struct {
	// Name is what the configuration's Export.Format holds and the
	// export digest records ("xlsx"); export finds its writer by it.
	Name string
	// Ext is the extension of an export path that chooses the format
	// (".xlsx"), compared ignoring case.
	Ext    string
	Layout Layout
}

// builtin are the formats leadsync writes. A new format is a row here and
// its writer in internal/export (TestEveryFormatHasAWriter there fails
// without one).
var builtin = []Format{
	{Name: "xlsx", Ext: ".xlsx", Layout: Workbook},
	{Name: "csv", Ext: ".csv", Layout: FilePerSheet},
}

// table is the table in use: builtin, plus what Register added.
var table struct {
	sync.RWMutex
	formats []Format
}

func init() { table.formats = builtin }

// All returns the formats, in the order of the table.
func All() []Format {
	table.RLock()
	defer table.RUnlock()
	return append([]Format(nil), table.formats...)
}

// ForPath returns the format an export path chooses by its extension.
func ForPath(path string) (Format, bool) {
	ext := filepath.Ext(path)
	table.RLock()
	defer table.RUnlock()
	for _, f := range table.formats {
		if strings.EqualFold(ext, f.Ext) {
			return f, true
		}
	}
	return Format{}, false
}

// Lookup returns the format of a name.
func Lookup(name string) (Format, bool) {
	table.RLock()
	defer table.RUnlock()
	for _, f := range table.formats {
		if f.Name == name {
			return f, true
		}
	}
	return Format{}, false
}

// Extensions lists the extensions for a message: ".xlsx or .csv".
func Extensions() string {
	fs := All()
	exts := make([]string, len(fs))
	for i, f := range fs {
		exts[i] = f.Ext
	}
	switch len(exts) {
	case 0:
		return "(none)"
	case 1:
		return exts[0]
	}
	return strings.Join(exts[:len(exts)-1], ", ") + " or " + exts[len(exts)-1]
}

// Register adds f to the table until the returned function is called. It
// is how a test proves that the table alone drives config's check of a
// path, the files config and plan expect, and export's choice of writer;
// a format leadsync ships is a row of builtin instead.
func Register(f Format) (unregister func()) {
	table.Lock()
	defer table.Unlock()
	table.formats = append(append([]Format(nil), table.formats...), f)
	return func() {
		table.Lock()
		defer table.Unlock()
		kept := make([]Format, 0, len(table.formats))
		for _, g := range table.formats {
			if g != f {
				kept = append(kept, g)
			}
		}
		table.formats = kept
	}
}
