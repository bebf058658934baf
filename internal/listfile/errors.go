package listfile

import (
	"fmt"
	"strconv"
	"strings"
)

// Error is one problem with a list file: where it is (the file as the
// configuration names it, the row, the column) and what is wrong, with how
// to fix it.
type Error struct {
	File   string // the file, as the configuration names it
	Row    int    // the line of a CSV file or the row of a sheet where the record starts; 0: the file as a whole
	Sheet  string // the sheet of a workbook read sheet after sheet; "" when one sheet was read
	Column string // the column's header; "" when the problem is not one cell's
	Msg    string // what is wrong and how to fix it
}

// Error writes file:row: column "X": message, with the sheet after the
// file (file (sheet "Old"):row) when it is named.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Sheet != "" {
		fmt.Fprintf(&b, " (sheet %q)", e.Sheet)
	}
	if e.Row > 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(e.Row))
	}
	b.WriteString(": ")
	if e.Column != "" {
		fmt.Fprintf(&b, "column %q: ", e.Column)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// maxListed is how many row problems an Errors keeps and shows; the rest
// are counted.
const maxListed = 10

// Errors is every row problem of one file, reported at once so that a user
// fixes them in one pass. It keeps the first maxListed and counts the rest.
type Errors struct {
	List []*Error
	More int // problems found beyond List
}

// Add records one problem.
func (es *Errors) Add(e *Error) {
	if len(es.List) < maxListed {
		es.List = append(es.List, e)
		return
	}
	es.More++
}

// Len is the number of problems found.
func (es *Errors) Len() int { return len(es.List) + es.More }

// Err returns es as an error (the one problem itself when there is one),
// or nil when it holds none.
func (es *Errors) Err() error {
	if es.Len() == 0 {
		return nil
	}
	if es.Len() == 1 {
		return es.List[0]
	}
	return es
}

// Error lists the problems, one a line, and how many more there are.
func (es *Errors) Error() string {
	lines := make([]string, 0, len(es.List)+1)
	for _, e := range es.List {
		lines = append(lines, e.Error())
	}
	if es.More > 0 {
		lines = append(lines, fmt.Sprintf("... and %d more rows like these", es.More))
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the problems listed, for errors.As.
func (es *Errors) Unwrap() []error {
	out := make([]error, len(es.List))
	for i, e := range es.List {
		out[i] = e
	}
	return out
}
