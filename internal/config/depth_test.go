package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckNesting(t *testing.T) {
	deep := func(open, close string, n int) string {
		return "locals {\n  x = " + strings.Repeat(open, n) + "1" + strings.Repeat(close, n) + "\n}\n"
	}
	for _, tt := range []struct {
		name string
		src  string
		bad  bool
	}{
		{"flat", "api {\n  sandbox = true\n}\n", false},
		{"100 brackets", deep("[", "]", 100), false},
		{"80,000 brackets", deep("[", "]", 80000), true},
		{"80,000 parentheses", deep("(", ")", 80000), true},
		{"80,000 objects", deep("{a=", "}", 80000), true},
		{"80,000 interpolations", deep(`"${`, `}"`, 80000), true},
		{"at the bound", deep("[", "]", MaxNesting-1), false}, // the locals block is one level
		{"one past the bound", deep("[", "]", MaxNesting), true},
		{"brackets in a comment", "# " + strings.Repeat("[", 1000) + "\nlocals {\n  x = 1\n}\n", false},
		{"brackets in a string", `locals { x = "` + strings.Repeat("[", 1000) + `" }`, false},
		{"block comment", "/* " + strings.Repeat("(", 1000) + " */ locals { x = 1 }", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := CheckNesting("main.leads.hcl", []byte(tt.src))
			if (d != nil) != tt.bad {
				t.Fatalf("CheckNesting = %v, want an error: %v", d, tt.bad)
			}
			if d != nil && (d.Subject == nil || d.Subject.Start.Line != 2 || d.Subject.Filename != "main.leads.hcl") {
				t.Errorf("the error points at %v, want main.leads.hcl line 2", d.Subject)
			}
		})
	}
}

// TestLoadDeepNesting: 80,000 nested levels crashed the parser with a Go
// stack overflow; now they are one clear error.
func TestLoadDeepNesting(t *testing.T) {
	dir := t.TempDir()
	src := "api {\n  sandbox = true\n}\nlocals {\n  x = " + strings.Repeat("[", 80000) + "1" + strings.Repeat("]", 80000) + "\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.leads.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags := Load(LoadOptions{Dir: dir})
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "nested too deeply") {
		t.Fatalf("diagnostics: %v", diags)
	}
}
