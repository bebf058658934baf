package testenv

import "os"

// memoryTemp is the file system in memory the tests' temporary folders
// go to when the machine has one (Linux's tmpfs on /dev/shm).
var memoryTemp = "/dev/shm"

// DiskTempEnv, set to 1, keeps the tests' temporary folders where TMPDIR
// (or the system) puts them: on the disk, fsyncs and all.
const DiskTempEnv = "LEADSYNC_TEST_DISK_TMP"

// RunInMemory runs the tests of m (m.Run) with TMPDIR pointed at a fresh
// folder on memoryTemp, for t.TempDir and the processes the tests start,
// and removes that folder after. A state written in a test then costs no
// disk flush: SQLite's synchronous=FULL makes each commit wait for the
// disk, most of the wall time of the state's tests. Nothing those tests
// check needs a disk: a kill is a process's (the kernel keeps what it
// wrote), and a full disk is a tmpfs of its own (MountTmpfs). Without
// memoryTemp, or with DiskTempEnv=1, the tests run as before.
func RunInMemory(m interface{ Run() int }) int {
	dir, err := memoryDir()
	if err != nil || dir == "" {
		if dir != "" {
			os.RemoveAll(dir)
		}
		return m.Run()
	}
	defer os.RemoveAll(dir)
	old, had := os.LookupEnv("TMPDIR")
	os.Setenv("TMPDIR", dir)
	defer func() {
		if had {
			os.Setenv("TMPDIR", old)
		} else {
			os.Unsetenv("TMPDIR")
		}
	}()
	return m.Run()
}

// memoryDir makes the folder RunInMemory uses, or returns "" when the
// tests keep their temporary folders on the disk.
func memoryDir() (string, error) {
	if os.Getenv(DiskTempEnv) == "1" {
		return "", nil
	}
	if st, err := os.Stat(memoryTemp); err != nil || !st.IsDir() {
		return "", nil
	}
	dir, err := os.MkdirTemp(memoryTemp, "leadsync-test-")
	if err != nil {
		return "", err
	}
	// Open to all, as /tmp is: a test run as root starts PostgreSQL as
	// the user postgres, its cluster in a folder of this one.
	return dir, os.Chmod(dir, os.ModeSticky|0o777)
}
