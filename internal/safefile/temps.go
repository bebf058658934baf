package safefile

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// TempPattern is the os.CreateTemp pattern of a temporary file made for
// path: hidden, next to it, named after it and kind ("tmp", "reading"),
// with the writer's process ID, so that RemoveDeadTemps can tell a
// leftover of a killed process from a file another process uses now.
func TempPattern(path, kind string) string {
	return tempPrefix(path, kind) + strconv.Itoa(os.Getpid()) + "-*"
}

func tempPrefix(path, kind string) string {
	return "." + filepath.Base(path) + "." + kind + "-"
}

// oldTempAge is how old a temporary file without a process ID (made by an
// older leadsync) must be to be taken as a leftover.
const oldTempAge = time.Hour

// RemoveDeadTemps removes the temporary files of path and kind
// (TempPattern) that a process killed midway left behind: those of a
// process that no longer runs on this host (and, without a process ID,
// those older than oldTempAge). Files of a live process, this one
// included, are left, and so is any other name. A file that cannot be
// removed is left: it is only clutter.
func RemoveDeadTemps(path, kind string) {
	prefix := tempPrefix(path, kind)
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(path), globEscape(prefix)+"*"))
	for _, m := range matches {
		rest := strings.TrimPrefix(filepath.Base(m), prefix)
		pidText, _, hasPID := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		switch {
		case hasPID && err == nil && pid > 0:
			if pid == os.Getpid() || ProcessAlive(pid) {
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
