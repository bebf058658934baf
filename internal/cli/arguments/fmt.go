package arguments

import (
	"errors"

	"github.com/spf13/pflag"
)

// Fmt is the command line of `leadsync fmt`.
type Fmt struct {
	// Check writes nothing and fails when a file is not formatted.
	Check bool
	// Diff prints the changes as a unified diff.
	Diff      bool
	Recursive bool
	// Paths are files or folders (relative to --chdir), "-" for standard
	// input; "." when none was given.
	Paths []string
}

// FmtFlags are the flags of fmt as given.
type FmtFlags struct {
	Check     bool
	Diff      bool
	Recursive bool
}

// Register declares the flags of fmt on fs.
func (fl *FmtFlags) Register(fs *pflag.FlagSet) {
	fs.BoolVar(&fl.Check, "check", false, "write nothing; exit 1 when a file is not formatted")
	fs.BoolVar(&fl.Diff, "diff", false, "print the changes as a unified diff")
	fs.BoolVar(&fl.Recursive, "recursive", false, "also format files in subdirectories")
}

// ParseFmt checks the command line of fmt.
func ParseFmt(fl FmtFlags, args []string) (*Fmt, error) {
	paths := args
	if len(paths) == 0 {
		paths = []string{"."}
	}
	stdin := 0
	for _, p := range paths {
		if p == "-" {
			stdin++
		}
	}
	if stdin > 1 {
		return nil, errors.New(`fmt: "-" (standard input) is named more than once: standard input can be read once`)
	}
	return &Fmt{Check: fl.Check, Diff: fl.Diff, Recursive: fl.Recursive, Paths: paths}, nil
}
