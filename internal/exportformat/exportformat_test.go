package exportformat

import "testing"

func TestTable(t *testing.T) {
	for _, tc := range []struct {
		path, name string
		ok         bool
	}{
		{"out/leads.xlsx", "xlsx", true},
		{"out/LEADS.XLSX", "xlsx", true},
		{"crm.csv", "csv", true},
		{"crm.Csv", "csv", true},
		{"crm.tsv", "", false},
		{"crm", "", false},
		{"xlsx", "", false},
	} {
		f, ok := ForPath(tc.path)
		if ok != tc.ok || f.Name != tc.name {
			t.Errorf("ForPath(%q) = %q, %v; want %q, %v", tc.path, f.Name, ok, tc.name, tc.ok)
		}
	}
	for _, f := range All() {
		if g, ok := Lookup(f.Name); !ok || g != f {
			t.Errorf("Lookup(%q) = %+v, %v", f.Name, g, ok)
		}
		if f.Layout != Workbook && f.Layout != FilePerSheet {
			t.Errorf("%s: layout %v", f.Name, f.Layout)
		}
	}
	if got := Extensions(); got != ".xlsx or .csv" {
		t.Errorf("Extensions() = %q", got)
	}
}

func TestRegister(t *testing.T) {
	tsv := Format{Name: "tsv", Ext: ".tsv", Layout: FilePerSheet}
	unregister := Register(tsv)
	if f, ok := ForPath("a.TSV"); !ok || f != tsv {
		t.Errorf("registered: ForPath = %+v, %v", f, ok)
	}
	if got := Extensions(); got != ".xlsx, .csv or .tsv" {
		t.Errorf("Extensions() = %q", got)
	}
	unregister()
	if _, ok := Lookup("tsv"); ok || len(All()) != 2 {
		t.Errorf("after unregister: %+v", All())
	}
}
