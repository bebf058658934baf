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
	}
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
			writeUnifiedDiff(f.IO.Out, name, src, out)
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
		writeUnifiedDiff(f.IO.Out, "<stdin>", src, out)
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
	if _, diags := hclsyntax.ParseConfig(src, name, hcl.InitialPos); diags.HasErrors() {
		return nil, diags
	}
	return hclwrite.Format(src), nil
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
// three lines of context.
func writeUnifiedDiff(w io.Writer, name string, a, b []byte) {
	al, bl := splitLines(a), splitLines(b)
	ops := diffLines(al, bl)
	fmt.Fprintf(w, "--- old/%s\n+++ new/%s\n", name, name)
	const ctx = 3
	// Group operations into hunks separated by more than 2*ctx equal lines.
	i := 0
	for i < len(ops) {
		for i < len(ops) && ops[i].kind == ' ' {
			i++
		}
		if i >= len(ops) {
			break
		}
		start := max(i-ctx, 0)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*ctx {
				end = min(end+ctx, len(ops))
				break
			}
			end = run
		}
		var aStart, aLen, bStart, bLen int
		aStart, bStart = ops[start].a+1, ops[start].b+1
		for _, op := range ops[start:end] {
			if op.kind != '+' {
				aLen++
			}
			if op.kind != '-' {
				bLen++
			}
		}
		if aLen == 0 {
			aStart--
		}
		if bLen == 0 {
			bStart--
		}
		fmt.Fprintf(w, "@@ -%d,%d +%d,%d @@\n", aStart, aLen, bStart, bLen)
		for _, op := range ops[start:end] {
			fmt.Fprintf(w, "%c%s\n", op.kind, op.text)
		}
		i = end
	}
}

type diffOp struct {
	kind byte // ' ', '-', '+'
	text string
	a, b int // line indexes (0-based) in a and b at this operation
}

func splitLines(s []byte) []string {
	t := strings.TrimSuffix(string(s), "\n")
	if t == "" {
		return nil
	}
	return strings.Split(t, "\n")
}

// diffLines computes a shortest edit script with a longest-common-subsequence
// table; configuration files are small. Very large inputs fall back to
// replacing everything.
func diffLines(a, b []string) []diffOp {
	n, m := len(a), len(b)
	if n*m > 4_000_000 {
		var ops []diffOp
		for i, s := range a {
			ops = append(ops, diffOp{'-', s, i, 0})
		}
		for j, s := range b {
			ops = append(ops, diffOp{'+', s, n, j})
		}
		return ops
	}
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []diffOp
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i], i, j})
			i++
			j++
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, diffOp{'-', a[i], i, j})
			i++
		default:
			ops = append(ops, diffOp{'+', b[j], i, j})
			j++
		}
	}
	return ops
}
