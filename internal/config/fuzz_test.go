package config

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

// FuzzLoad loads arbitrary bytes as a configuration (and the second input
// as a variables file and as the module of folder m, which the first may
// call with source = "./m"): Load must never panic and must always return
// a Config.
func FuzzLoad(f *testing.F) {
	for _, dir := range []string{"../../examples/quickstart", "../../examples/team", "../../examples/split", "../../examples/markets", "../../examples/markets/personas/cto"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.hcl"))
		for _, p := range files {
			b, _ := os.ReadFile(p)
			f.Add(b, []byte("cities = [\"Berlin\"]\n"))
		}
	}
	invalid, _ := filepath.Glob("../../testdata/invalid/*/*.hcl")
	for _, p := range invalid {
		b, _ := os.ReadFile(p)
		f.Add(b, []byte(""))
	}
	f.Add([]byte("search \"x\" {\n  for_each = {a = 1}\n  keywords = each.value\n}\n"), []byte("x = 1"))
	f.Add([]byte("api {\n  sandbox = true\n}\nmodule \"a\" {\n  for_each = toset([\"x\", \"y\"])\n  source = \"./m\"\n  k = each.key\n}\nenrich \"e\" {\n  from = [module.a.o]\n}\nmoved {\n  from = search.old\n  to = module.a[\"x\"].search.s\n}\n"),
		[]byte("variable \"k\" {\n  type = string\n}\nsearch \"s\" {\n  keywords = var.k\n}\noutput \"o\" {\n  value = [search.s]\n}\nmodule \"again\" {\n  source = \"../m\"\n}\n"))
	// Work the evaluation must refuse within seconds (work.go).
	f.Add([]byte("locals {\n  x = length([for i in range(1024) : length([for j in range(1024) : length([for k in range(1024) : k])])])\n}\n"), []byte(""))
	f.Add([]byte("locals {\n  x = can([for i in setproduct(range(300), range(300)) : [for j in range(300) : replace(\"${i[0]}\", \"1\", format(\"%0999d\", j))]])\n}\n"), []byte(""))
	f.Fuzz(func(t *testing.T, src, vars []byte) {
		fs := fstest.MapFS{
			"main.leads.hcl":      &fstest.MapFile{Data: src},
			"x.auto.leadvars.hcl": &fstest.MapFile{Data: vars},
			"m/main.leads.hcl":    &fstest.MapFile{Data: vars},
		}
		cfg, _ := Load(LoadOptions{Dir: "/fuzz", FS: fs, Vars: []string{"cities=[\"A\"]"}})
		if cfg == nil || cfg.Files == nil {
			t.Fatal("Load returned no Config")
		}
		for _, e := range cfg.Enriches {
			cfg.Match(e, leadForFuzz)
		}
		cfg.DiagFiles()
	})
}

var leadForFuzz = apiLead()
