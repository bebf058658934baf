// Package version holds the tool's version, set at build time with
//
//	go build -ldflags "-X github.com/leadsync/leadsync/internal/version.Version=v1.2.3"
package version

import "runtime/debug"

// Version is the leadsync version. "dev" unless set by the linker or by
// module information of an installed build.
var Version = "dev"

// String returns the version, falling back to the module version recorded in
// the binary when the linker did not set one.
func String() string {
	if Version != "dev" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return Version
}
