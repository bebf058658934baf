package export

import (
	"fmt"
	"sort"
	"strings"

	"github.com/xuri/excelize/v2"
)

// sumChart is a chart of the Summary sheet (XLSX only: a CSV summary has
// none). It is drawn beside the table it reads, from the table's header
// row down: the n rows after the header, labels in column A, numbers in
// column B.
type sumChart struct {
	title string
	typ   excelize.ChartType
	n     int
}

// chartRows is how many rows of the sheet a chart takes: its table is
// padded to that height, so that what follows starts below the chart.
const (
	chartRows   = 13
	chartWidth  = 480
	chartHeight = chartRows * 20 // a row of 15 points is 20 pixels
)

// chartTable adds a table (header, rows of label and number) that a chart
// titled chart draws, then empty rows down to the chart's bottom; title,
// when not empty, starts a section of its own. With no rows, or only
// zeros, it adds nothing and returns false: a chart with nothing to draw
// is left out. Without charts (a CSV summary) it adds nothing either.
func (b *sumRows) chartTable(title, chart string, typ excelize.ChartType, header []any, rows []sumRow) bool {
	drawn := false
	for _, r := range rows {
		if n, ok := r.cells[1].(int); ok && n != 0 {
			drawn = true
		}
	}
	if !drawn || !b.charts {
		return false
	}
	if title != "" {
		b.gap()
		b.add(styleTitle, title)
	}
	b.rows = append(b.rows, sumRow{style: styleHeader, cells: header, chart: &sumChart{title: chart, typ: typ, n: len(rows)}})
	b.rows = append(b.rows, rows...)
	for i := len(rows); i < chartRows-1; i++ {
		b.gap()
	}
	return true
}

// sourceCounts are the people of the export by the source that found
// them (a person found by two sources counts under each), in the order
// of the sources; sources that found nobody of the export are left out.
func (j *job) sourceCounts() []sumRow {
	searches, profiles, imports := j.sources()
	var rows []sumRow
	for _, srcs := range [][]string{searches, profiles, imports} {
		for _, src := range srcs {
			if n := j.bySource[src]; n > 0 {
				rows = append(rows, sumRow{style: stylePlain, cells: []any{j.sourceName(src), n}})
			}
		}
	}
	return rows
}

// countIn counts the IDs of ids in in, each once; seen is emptied and
// used to know them (one map for the 10,000 searches of an export, not
// one each).
func countIn(ids []string, in map[string]struct{}, seen map[string]bool) int {
	clear(seen)
	n := 0
	for _, id := range ids {
		if _, ok := in[id]; ok && !seen[id] {
			seen[id] = true
			n++
		}
	}
	return n
}

// jobChangeMonths counts, by UTC month, the people of the export whose
// title or company was seen to change that month (a person once a month).
// Only months with a change are listed: a month without one may be a
// month nobody looked.
func (j *job) jobChangeMonths() []sumRow {
	return monthRows(j.facts.jobMonths)
}

// creditMonths are the credits runs were charged, by UTC month, as the
// state counts them, and the credits charged before it counted them by
// month (their months unknown: not drawn). Enrichments of unknown outcome
// are not drawn either: they may not have been charged.
func (j *job) creditMonths() (rows []sumRow, unknownMonth int) {
	u := j.st.Usage
	known := 0
	for _, n := range u.CreditsByMonth {
		known += n
	}
	return monthRows(u.CreditsByMonth), max(u.CreditsSpent-known, 0)
}

// monthRows lists counts by month ("2006-01"), oldest first.
func monthRows(byMonth map[string]int) []sumRow {
	months := make([]string, 0, len(byMonth))
	for m, n := range byMonth {
		if n != 0 {
			months = append(months, m)
		}
	}
	sort.Strings(months)
	rows := make([]sumRow, len(months))
	for i, m := range months {
		rows[i] = sumRow{style: stylePlain, cells: []any{m, byMonth[m]}}
	}
	return rows
}

// addChart draws c beside its table, whose header is on row r (from 0):
// column A of the rows after the header names the categories, column B
// holds the numbers.
func (ss *sumSheet) addChart(r int, c *sumChart) error {
	sheet := "'" + strings.ReplaceAll(ss.name, "'", "''") + "'!"
	first, last := r+2, r+1+c.n
	vary, axisFont := false, excelize.Font{Size: 9, Color: "404040"}
	ch := &excelize.Chart{
		Type: c.typ,
		Series: []excelize.ChartSeries{{
			Name:       fmt.Sprintf("%s$B$%d", sheet, r+1),
			Categories: fmt.Sprintf("%s$A$%d:$A$%d", sheet, first, last),
			Values:     fmt.Sprintf("%s$B$%d:$B$%d", sheet, first, last),
		}},
		Title:     excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: c.title, Font: &excelize.Font{Size: 11, Bold: true}}}},
		Dimension: excelize.ChartDimension{Width: chartWidth, Height: chartHeight},
		Format:    excelize.GraphicOptions{OffsetX: 12, OffsetY: 2},
		Legend:    excelize.ChartLegend{Position: "none"},
		PlotArea:  excelize.ChartPlotArea{ShowVal: true},
		// One series, one colour; axis labels dark enough to read.
		VaryColors: &vary,
		XAxis:      excelize.ChartAxis{Font: axisFont},
		YAxis:      excelize.ChartAxis{Font: axisFont, MajorGridLines: true},
	}
	if c.typ == excelize.Pie {
		ch.Legend.Position = "right"
		ch.PlotArea = excelize.ChartPlotArea{ShowPercent: true}
		ch.VaryColors = nil // a slice a colour
	}
	return ss.f.AddChart(ss.name, fmt.Sprintf("C%d", r+1), ch)
}
