package local

// ProcessAlive reports whether a process with this ID runs on this host
// (as far as the platform can tell; where it cannot, true).
func ProcessAlive(pid int) bool { return processAlive(pid) }
