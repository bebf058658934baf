package config

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/cputime"
)

// BenchmarkLoadListFiles loads a configuration whose exclude block reads a
// customer list of 100,000 rows (exclude), whose import block reads an
// export of 100,000 rows (import; seven columns each, four of the
// import's mapped), and both (both): what a large list costs the
// configuration's load, and so every plan and apply. The figure:
// under 1 s and under 100 MB each. B/op is every byte allocated, an upper
// bound of the memory a load adds; live-MB what stays in use.
//
//	go test ./internal/config -run '^$' -bench LoadListFiles -benchmem -benchtime 3x
func BenchmarkLoadListFiles(b *testing.B) {
	const rows = 100_000
	dir := b.TempDir()
	var customers, legacy strings.Builder
	customers.WriteString("Kunde;Ort;Umsatz;Seit;Branche;Kontakt;Notiz\n")
	legacy.WriteString("First Name,Last Name,LinkedIn URL,Email,Email status,Domain,Exported\n")
	for i := range rows {
		fmt.Fprintf(&customers, "Kunde %d GmbH & Co. KG;Köln;%d;2019;IT;Max;\"viel; zu tun\"\n", i, i*7)
		fmt.Fprintf(&legacy, "First%d,Last%d,https://www.network.example/profile/Person_%d/,person%d@company-%d.example,Valid,company-%d.example,2026-10-%02d\n",
			i, i, i, i, i/3, i/3, 1+i%28)
	}
	const (
		exclude = `
exclude "customers" {
  file   = "crm/customers.csv"
  column = "Kunde"
  by     = "company"
}
`
		imports = `
import "legacy" {
  file    = "legacy/export.csv"
  columns = { profile_url = "LinkedIn URL", email = "Email", validation_status = "Email status", enriched_at = "Exported" }
}
`
	)
	files := map[string]string{
		"exclude/main.leads.hcl": "api {\n  sandbox = true\n}\n" + exclude,
		"import/main.leads.hcl":  "api {\n  sandbox = true\n}\n" + imports,
		"both/main.leads.hcl":    "api {\n  sandbox = true\n}\n" + exclude + imports,
	}
	for _, sub := range []string{"exclude", "import", "both"} {
		files[sub+"/crm/customers.csv"] = customers.String()
		files[sub+"/legacy/export.csv"] = legacy.String()
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, sub := range []string{"exclude", "import", "both"} {
		b.Run(sub, func(b *testing.B) { benchLoad(b, filepath.Join(dir, sub), rows) })
	}
}

func benchLoad(b *testing.B, dir string, rows int) {
	var cfg *Config
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ReportAllocs()
	cpu0 := cputime.Self()
	b.ResetTimer()
	for range b.N {
		var diags interface{ HasErrors() bool }
		cfg, diags = Load(LoadOptions{Dir: dir})
		if diags.HasErrors() {
			b.Fatal(diags)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(cputime.Self()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/(1<<20), "live-MB")
	for _, ex := range cfg.Excludes {
		if ex.Keys.Len() != rows {
			b.Fatalf("%d keys", ex.Keys.Len())
		}
	}
	for _, im := range cfg.Imports {
		if len(im.People) != rows {
			b.Fatalf("%d people", len(im.People))
		}
	}
}
