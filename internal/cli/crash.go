package cli

import (
	"os"
	"path/filepath"
	"time"

	"github.com/leadsync/leadsync/internal/version"
	"github.com/leadsync/leadsync/internal/views"
)

// crashed turns a panic of the command's goroutine into one message and
// exit code ExitError: a bug of leadsync, never a Go stack trace on the
// user's screen. The stack goes to a file of its own (crashLog), named in
// the message, for the report. The command's deferred work (the state's
// lock released, files closed) ran as the panic unwound; every answer
// paid for was written to the state before the next call was made.
func crashed(f *Factory, p any, stack []byte) int {
	path, err := crashLog(f, p, stack)
	if err != nil {
		path = ""
	}
	views.Crash(f.IO.ErrOut, p, path)
	return ExitError
}

// crashLog writes the panic's value and stack to a new file in the
// user's cache directory, under leadsync (os.TempDir without one), and
// returns its path.
func crashLog(f *Factory, p any, stack []byte) (string, error) {
	dir := os.TempDir()
	if f.CacheDir != "" {
		dir = filepath.Join(f.CacheDir, "leadsync")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", err
		}
	}
	file, err := os.CreateTemp(dir, "leadsync-crash-*.log")
	if err != nil {
		return "", err
	}
	now := time.Now
	if f.Now != nil {
		now = f.Now
	}
	werr := views.CrashLog(file, version.String(), now(), p, stack)
	if err := file.Close(); werr == nil {
		werr = err
	}
	return file.Name(), werr
}
