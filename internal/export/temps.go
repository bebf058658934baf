package export

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// tempPattern is the name of the temporary file of path: hidden, next to
// it, with the writer's process ID, so that the next run can tell a
// leftover of a killed export from a file another export is writing now.
func tempPattern(path string) string {
	return "." + filepath.Base(path) + ".tmp-" + strconv.Itoa(os.Getpid()) + "-*"
}

// oldTempAge is how old a temporary file without a process ID (written by
// an older leadsync) must be to be taken as a leftover.
const oldTempAge = time.Hour

// removeDeadTemps removes the temporary files of path that an export
// killed midway left behind: those of a process that no longer runs on
// this host (and, without a process ID, those older than oldTempAge).
// A file that cannot be removed is left: it is only clutter.
func removeDeadTemps(path string) {
	prefix := "." + filepath.Base(path) + ".tmp-"
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(path), globEscape(prefix)+"*"))
	for _, m := range matches {
		rest := strings.TrimPrefix(filepath.Base(m), prefix)
		pidText, _, hasPID := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		switch {
		case hasPID && err == nil && pid > 0:
			if pid == os.Getpid() || processAlive(pid) {
				continue
			}
		default:
			fi, err := os.Stat(m)
			if err != nil || time.Since(fi.ModTime()) < oldTempAge {
				continue
			}
		}
		os.Remove(m)
	}
}

// globEscape escapes the characters filepath.Match treats specially.
func globEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`)
	return r.Replace(s)
}
