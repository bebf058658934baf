package cli

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/aymanbagabas/go-udiff"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/config"
)

// fmtOptions are the inputs of `leadsync fmt`.
type fmtOptions struct {
	check     bool
	diff      bool
	recursive bool
	paths     []string // files or directories; none: the working directory
}

func newFmtCmd(f *Factory) *cobra.Command {
	opts := &fmtOptions{}
	cmd := &cobra.Command{
		Use:   "fmt [PATH...]",
		Short: "Rewrite configuration files in the canonical format",
		Long: `Fmt rewrites *.leads.hcl and *.leadvars.hcl files in the canonical format
(indentation, aligned equals signs) and prints the names of the files it
changed. PATH may be files or directories (default: the working directory);
"-" formats standard input to standard output.

A directory's configuration is formatted with the module folders it calls
(module blocks' source, nested calls too, a shared ../modules as well):
they are part of it. --recursive formats every subdirectory besides, as
terraform fmt -recursive does, skipping hidden ones (.leadsync, .git).

With --check nothing is written: fmt lists the files that are not formatted
and exits 1 when there is any, which suits CI.`,
		Example: `  leadsync fmt
  leadsync fmt --check --diff --recursive`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.paths = args
			return runFmt(f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.check, "check", false, "write nothing; exit 1 when a file is not formatted")
	cmd.Flags().BoolVar(&opts.diff, "diff", false, "print the changes as a unified diff")
	cmd.Flags().BoolVar(&opts.recursive, "recursive", false, "also format files in subdirectories")
	return cmd
}

// isFormattable says whether fmt picks a file up when walking a directory.
func isFormattable(name string) bool {
	return strings.HasSuffix(name, config.ConfigSuffix) || strings.HasSuffix(name, ".leadvars.hcl")
}

func runFmt(f *Factory, opts *fmtOptions) error {
	paths := opts.paths
	if len(paths) == 0 {
		paths = []string{"."}
	}
	var files []string
	for _, p := range paths {
		if p == "-" {
			if err := fmtStdin(f, opts); err != nil {
				return err
			}
			continue
		}
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(f.Dir, p)
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return fmt.Errorf("fmt: %s: no such file or directory", p)
		}
		if !fi.IsDir() {
			files = append(files, abs)
			continue
		}
		found, err := findFormattable(abs, opts.recursive)
		if err != nil {
			return fmt.Errorf("fmt: %w", err)
		}
		files = append(files, found...)
		// The module folders the configuration calls are part of it,
		// wherever they are (a shared ../modules too).
		for _, dir := range config.ModuleDirs(abs) {
			found, err := findFormattable(dir, false)
			if err != nil {
				return fmt.Errorf("fmt: %w", err)
			}
			files = append(files, found...)
		}
	}
	files = uniqueFiles(files)
	changed, failed := 0, false
	for _, path := range files {
		name := path
		if rel, err := filepath.Rel(f.Dir, path); err == nil && !strings.HasPrefix(rel, "..") {
			name = rel
		}
		src, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintf(f.IO.ErrOut, "Error: cannot read %s: %v\n", name, err)
			failed = true
			continue
		}
		out, diags := formatSource(src, name)
		if diags.HasErrors() {
			renderWithFiles(f.IO.ErrOut, map[string]*hcl.File{name: {Bytes: src}}, diags, f.IO.ColorErr())
			failed = true
			continue
		}
		if bytes.Equal(src, out) {
			continue
		}
		changed++
		fmt.Fprintln(f.IO.Out, name)
		if opts.diff {
			if err := writeUnifiedDiff(f.IO.Out, name, src, out); err != nil {
				fmt.Fprintf(f.IO.ErrOut, "Error: %v\n", err)
				failed = true
			}
		}
		if !opts.check {
			fi, err := os.Stat(path)
			mode := fs.FileMode(0o644)
			if err == nil {
				mode = fi.Mode().Perm()
			}
			if err := os.WriteFile(path, out, mode); err != nil {
				fmt.Fprintf(f.IO.ErrOut, "Error: cannot write %s: %v\n", name, err)
				failed = true
			}
		}
	}
	if failed || (opts.check && changed > 0) {
		return silentExit(ExitError)
	}
	return nil
}

func fmtStdin(f *Factory, opts *fmtOptions) error {
	src, err := io.ReadAll(f.IO.In)
	if err != nil {
		return fmt.Errorf("fmt: reading standard input: %w", err)
	}
	out, diags := formatSource(src, "<stdin>")
	if diags.HasErrors() {
		renderWithFiles(f.IO.ErrOut, map[string]*hcl.File{"<stdin>": {Bytes: src}}, diags, f.IO.ColorErr())
		return silentExit(ExitError)
	}
	switch {
	case opts.diff:
		if err := writeUnifiedDiff(f.IO.Out, "<stdin>", src, out); err != nil {
			return err
		}
	case !opts.check:
		f.IO.Out.Write(out)
	}
	if opts.check && !bytes.Equal(src, out) {
		return silentExit(ExitError)
	}
	return nil
}

// formatSource checks that src parses, then formats it with hclwrite. A file
// with syntax errors is never rewritten.
func formatSource(src []byte, name string) ([]byte, hcl.Diagnostics) {
	if d := config.CheckNesting(name, src); d != nil {
		return nil, hcl.Diagnostics{d}
	}
	if _, diags := hclsyntax.ParseConfig(src, name, hcl.InitialPos); diags.HasErrors() {
		return nil, diags
	}
	return hclwrite.Format(src), nil
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

// findFormattable lists the formattable files of dir (and its subdirectories
// when recursive, skipping hidden ones such as .leadsync and .git), sorted.
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

// writeUnifiedDiff prints the change from a to b as a unified diff with
// three lines of context. The diff is go-udiff's (gopls's line diff): it
// is linear in practice, where a longest-common-subsequence table was
// quadratic in the number of lines.
func writeUnifiedDiff(w io.Writer, name string, a, b []byte) error {
	before, after := string(a), string(b)
	d, err := udiff.ToUnified("old/"+name, "new/"+name, before, udiff.Lines(before, after), udiff.DefaultContextLines)
	if err != nil {
		return fmt.Errorf("cannot compute the diff of %s: %w", name, err)
	}
	_, err = io.WriteString(w, d)
	return err
}
