package run

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"

	"github.com/leadsync/leadsync/internal/config"
)

// FmtFile is one configuration file leadsync fmt looked at.
type FmtFile struct {
	// Name is the file as shown: relative to the working folder when it is
	// inside it.
	Name string
	// Before is the file as read; After formatted (nil when the file could
	// not be read or has syntax errors).
	Before, After []byte
	// Diags are its syntax errors: a file with one is left as it is.
	Diags hcl.Diagnostics
	// Err says why the file could not be read or written.
	Err error
}

// Changed reports whether formatting changes the file.
func (f FmtFile) Changed() bool { return f.After != nil && !bytes.Equal(f.Before, f.After) }

// FmtFiles lists the files leadsync fmt formats for paths (files or
// folders, relative to dir unless absolute): a file as named, and in a
// folder its *.leads.hcl and *.leadvars.hcl files (with recursive, those
// of its subfolders too, hidden ones such as .leadsync and .git left out),
// sorted, then those of the module folders its configuration calls
// (config.ModuleDirs), each file once. A path that does not exist is an
// error, before anything is formatted.
func FmtFiles(dir string, paths []string, recursive bool) ([]string, error) {
	var files []string
	for _, p := range paths {
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(dir, p)
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("fmt: %s: no such file or directory", p)
		}
		if !fi.IsDir() {
			files = append(files, abs)
			continue
		}
		found, err := findFormattable(abs, recursive)
		if err != nil {
			return nil, fmt.Errorf("fmt: %w", err)
		}
		files = append(files, found...)
		// The module folders the configuration calls are part of it,
		// wherever they are (a shared ../modules too).
		for _, mod := range config.ModuleDirs(abs) {
			found, err := findFormattable(mod, false)
			if err != nil {
				return nil, fmt.Errorf("fmt: %w", err)
			}
			files = append(files, found...)
		}
	}
	return uniqueFiles(files), nil
}

// uniqueFiles drops the files named twice (a module folder that
// --recursive finds too), keeping the first.
func uniqueFiles(files []string) []string {
	seen := map[string]bool{}
	out := files[:0]
	for _, f := range files {
		if !seen[filepath.Clean(f)] {
			seen[filepath.Clean(f)] = true
			out = append(out, f)
		}
	}
	return out
}

// isFormattable says whether fmt picks a file up when walking a folder.
func isFormattable(name string) bool {
	return strings.HasSuffix(name, config.ConfigSuffix) || strings.HasSuffix(name, ".leadvars.hcl")
}

// findFormattable lists the formattable files of dir (and of its
// subfolders when recursive, skipping hidden ones), sorted.
func findFormattable(dir string, recursive bool) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != dir && (!recursive || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && isFormattable(d.Name()) {
			out = append(out, path)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// Fmt formats each of files (named relative to dir when inside it) and,
// unless check, writes those that change in place, keeping their mode. A
// file that cannot be read or has syntax errors is left as it is. It
// returns what it found for each file, in order.
func Fmt(dir string, files []string, check bool) []FmtFile {
	out := make([]FmtFile, 0, len(files))
	for _, path := range files {
		r := FmtFile{Name: path}
		if rel, err := filepath.Rel(dir, path); err == nil && !strings.HasPrefix(rel, "..") {
			r.Name = rel
		}
		src, err := os.ReadFile(path)
		if err != nil {
			r.Err = fmt.Errorf("cannot read %s: %v", r.Name, err)
			out = append(out, r)
			continue
		}
		r.Before = src
		if r.After, r.Diags = FormatSource(src, r.Name); r.Diags.HasErrors() {
			r.After = nil
		}
		if r.Changed() && !check {
			r.Err = writeFormatted(path, r.Name, r.After)
		}
		out = append(out, r)
	}
	return out
}

// writeFormatted writes the formatted content of the file at path over
// it, keeping its mode.
func writeFormatted(path, name string, content []byte) error {
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.WriteFile(path, content, mode); err != nil {
		return fmt.Errorf("cannot write %s: %v", name, err)
	}
	return nil
}

// FormatSource checks that src (named name in diagnostics) parses, then
// formats it with hclwrite, an object written over several lines one key
// per line (objectsOnePerLine). A file with syntax errors is never rewritten:
// its diagnostics say why.
func FormatSource(src []byte, name string) ([]byte, hcl.Diagnostics) {
	if d := config.CheckNesting(name, src); d != nil {
		return nil, hcl.Diagnostics{d}
	}
	if _, diags := hclsyntax.ParseConfig(src, name, hcl.InitialPos); diags.HasErrors() {
		return nil, diags
	}
	return hclwrite.Format(objectsOnePerLine(src, name)), nil
}
