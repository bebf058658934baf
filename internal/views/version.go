package views

import (
	"fmt"
	"io"
	"runtime"

	"github.com/leadsync/leadsync/internal/version"
)

// VersionLine is what leadsync version and leadsync --version print: the
// version, the Go toolchain and the platform.
func VersionLine() string {
	return fmt.Sprintf("leadsync %s (%s, %s/%s)", version.String(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// Version is the view of `leadsync version`: the version line.
func Version(w io.Writer) error {
	_, err := fmt.Fprintln(w, VersionLine())
	return err
}
