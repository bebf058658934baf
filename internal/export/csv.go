package export

import (
	"encoding/csv"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/leadsync/leadsync/internal/config"
)

// bom is the UTF-8 byte order mark; with it Excel reads a CSV file as UTF-8.
const bom = "\uFEFF"

// neutralise defuses a cell that a spreadsheet would read as a formula: one
// starting with =, +, -, @, tab or carriage return gets a leading
// apostrophe, which Excel and LibreOffice treat as "this is text" (the OWASP
// advice for CSV injection). The data comes from a third-party site.
func neutralise(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return "'" + s
	}
	return s
}

// csvTime writes a time as RFC 3339 in UTC; the zero time is empty.
func csvTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// csvWriter writes CSV files (exportformat's FilePerSheet layout).
type csvWriter struct{}

var _ writer = csvWriter{}

// write writes one file per sheet and the summary file. All are written
// under temporary names first and renamed only when every one is complete.
func (csvWriter) write(j *job) ([]Written, error) {
	names := make([]string, len(j.sheets))
	for i, s := range j.sheets {
		names[i] = s.conf.Name
	}
	files, sumPath := config.SheetFiles(j.path, names)
	var pending []*atomicFile
	defer func() {
		for _, af := range pending {
			af.abort()
		}
	}()
	var out []Written
	for i := range j.sheets {
		s := &j.sheets[i]
		af, err := createAtomic(files[i])
		if err != nil {
			return nil, err
		}
		pending = append(pending, af)
		if err := j.writeCSVTable(af, s.table); err != nil {
			return nil, fmt.Errorf("writing %s: %w", files[i], err)
		}
		s.where = filepath.Base(files[i])
		out = append(out, Written{Path: files[i], Export: j.exp.Address, Sheets: 1, Rows: s.table.n})
	}
	af, err := createAtomic(sumPath)
	if err != nil {
		return nil, err
	}
	pending = append(pending, af)
	if err := j.writeCSVSummary(af); err != nil {
		return nil, fmt.Errorf("writing %s: %w", sumPath, err)
	}
	if err := j.readErr(); err != nil {
		return nil, fmt.Errorf("writing %s: %w", sumPath, err)
	}
	out = append(out, Written{Path: sumPath, Export: j.exp.Address, Summary: true})
	for _, af := range pending {
		if err := af.finish(); err != nil {
			return nil, err
		}
	}
	if err := j.opts.halted(); err != nil {
		return nil, err // a CSV export's files are put in place together
	}
	for _, af := range pending {
		if err := af.rename(); err != nil {
			return nil, err
		}
	}
	for i := range out {
		out[i].Warnings = j.warnings
	}
	return out, nil
}

func (j *job) newCSVWriter(af *atomicFile) (*csv.Writer, error) {
	if j.opts.BOM {
		if _, err := af.WriteString(bom); err != nil {
			return nil, err
		}
	}
	w := csv.NewWriter(af)
	w.UseCRLF = true // RFC 4180
	return w, nil
}

func (j *job) writeCSVTable(af *atomicFile, t *table) error {
	w, err := j.newCSVWriter(af)
	if err != nil {
		return err
	}
	// A header label is the user's text (labels = {...}): defused like a cell.
	header := make([]string, len(t.header))
	for c, h := range t.header {
		header[c] = neutralise(h)
	}
	if err := w.Write(header); err != nil {
		return err
	}
	cells := make([]cellValue, len(t.header))
	rec := make([]string, len(t.header))
	for i := 0; i < t.n; i++ {
		t.fill(i, cells)
		for c, cell := range cells {
			switch t.kinds[c] {
			case kindText, kindLink:
				rec[c] = neutralise(cell.Text)
			case kindTime:
				rec[c] = ""
				if !cell.Empty {
					rec[c] = csvTime(cell.Time)
				}
			case kindBool:
				rec[c] = ""
				if !cell.Empty {
					rec[c] = strconv.FormatBool(cell.Bool)
				}
			case kindNumber:
				rec[c] = ""
				if !cell.Empty {
					rec[c] = strconv.FormatInt(cell.Num, 10)
				}
			}
		}
		if err := w.Write(rec); err != nil {
			return err
		}
		if i%csvBatch == csvBatch-1 {
			if err := t.haltErr(); err != nil {
				return err
			}
		}
	}
	if err := t.readErr(); err != nil {
		return err // the people of its rows could not be read
	}
	w.Flush()
	return w.Error()
}

// csvBatch is how many rows a CSV sheet writes between two checks of
// the writer's stop.
const csvBatch = 4096

// writeCSVSummary writes the Summary as a CSV file; every row has as many
// fields as the widest one, as RFC 4180 asks.
func (j *job) writeCSVSummary(af *atomicFile) error {
	rows := j.summary(false)
	width := 0
	for _, r := range rows {
		width = max(width, len(r.cells))
	}
	w, err := j.newCSVWriter(af)
	if err != nil {
		return err
	}
	for _, r := range rows {
		rec := make([]string, width)
		for c, v := range r.cells {
			switch x := v.(type) {
			case nil:
			case string:
				rec[c] = neutralise(x)
			case int:
				rec[c] = strconv.Itoa(x)
			case time.Time:
				rec[c] = csvTime(x)
			default:
				rec[c] = neutralise(fmt.Sprint(x))
			}
		}
		if err := w.Write(rec); err != nil {
			return err
		}
	}
	w.Flush()
	return w.Error()
}
