//go:build !unix

package state

import "os"

// lockFile does nothing where flock does not exist: the pace is then shared
// on a best-effort basis (a rare race costs one 429, which is retried).
func lockFile(*os.File) error { return nil }

func unlockFile(*os.File) {}
