package export

import (
	"fmt"
	"strconv"
	"time"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// benchColumns are the 12 columns of the benchmark sheet.
var benchColumns = []string{
	"firstName", "lastName", "fullName", "title", "company", "location",
	"networkId", "email", "validationStatus", "profileUrl", "firstSeen", "lastSeen",
}

// writeSynthetic writes an XLSX file at path with one sheet of rows
// generated on the fly (the benchColumns), without a state behind it. It
// exists for the benchmark (go test -bench and bench/export): it measures
// the writer alone, since a state of a million people is itself a few
// hundred megabytes.
func writeSynthetic(path string, rows int, now time.Time) (Written, error) {
	out, err := xlsxWriter{}.write(syntheticJob(path, rows, now))
	if err != nil {
		return Written{}, err
	}
	if len(out) != 1 {
		return Written{}, fmt.Errorf("wrote %d files", len(out))
	}
	return out[0], nil
}

// syntheticJob is the job writeSynthetic writes: one sheet of rows
// generated on the fly.
func syntheticJob(path string, rows int, now time.Time) *job {
	firsts := []string{"Jürgen", "Siobhán", "Zoë 🚀", "Anna", "Mehmet", "Łukasz", "مريم", "Chloé", "Ole", "Björn"}
	lasts := []string{"Müller", "O'Connor", "Smith", "Nowak", "Yılmaz", "Dubois", "العربي", "Hansen", "García", "Schäfer"}
	titles := []string{"CTO", "Head of Engineering", "VP Technology", "Chief Technology Officer", "IT-Leiter"}
	companies := []string{"Bäckerei Größe GmbH", "O'Reilly & Sons", "Example AG", "Muster KG", "=1+1 Ltd"}
	cities := []string{"Berlin", "Hamburg", "München", "Köln", "Frankfurt am Main"}
	statuses := []string{"valid", "catch all", "empty", ""}
	kinds := []cellKind{kindText, kindText, kindText, kindText, kindText, kindText, kindText, kindText, kindText, kindLink, kindTime, kindTime}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	t := &table{
		name:   "Leads",
		header: benchColumns,
		kinds:  kinds,
		n:      rows,
		fill: func(i int, row []cellValue) {
			f, l := firsts[i%len(firsts)], lasts[(i/7)%len(lasts)]
			id := strconv.Itoa(10_000_000 + i)
			row[0] = cellValue{Text: f}
			row[1] = cellValue{Text: l}
			row[2] = cellValue{Text: f + " " + l}
			row[3] = cellValue{Text: titles[i%len(titles)]}
			row[4] = cellValue{Text: companies[(i/3)%len(companies)]}
			row[5] = cellValue{Text: cities[(i/11)%len(cities)]}
			row[6] = cellValue{Text: id}
			row[7] = cellValue{Text: "person" + id + "@example.com"}
			row[8] = cellValue{Text: statuses[i%len(statuses)]}
			row[9] = cellValue{Text: "https://network.example/profile/p" + id}
			row[10] = cellValue{Time: base.Add(time.Duration(i) * time.Second)}
			row[11] = cellValue{Time: base.Add(time.Duration(i) * time.Minute)}
		},
	}
	sh := &config.Sheet{Name: "Leads", Columns: benchColumns, Dedupe: true}
	exp := &config.Export{Address: "export.bench", Name: "bench", Path: path, Format: "xlsx", Sheets: []*config.Sheet{sh}}
	return &job{
		cfg:    &config.Config{Exports: []*config.Export{exp}},
		exp:    exp,
		st:     &state.State{},
		now:    now.UTC(),
		path:   path,
		sheets: []sheetJob{{conf: sh, table: t}},
	}
}
