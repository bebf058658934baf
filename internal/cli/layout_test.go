package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestEveryCommandHasItsFiles: each command lives in one file named after
// it (cmd_state_rm.go for leadsync state rm), and each that runs has its
// parser in arguments/ (arguments/state_rm.go). A new command is those
// two files and a line that adds it.
func TestEveryCommandHasItsFiles(t *testing.T) {
	f, _, _ := configTestFactory(t.TempDir())
	root := NewRootCmd(f)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if c == root || c.Hidden || strings.HasPrefix(c.Name(), "__") {
			return
		}
		name := strings.ReplaceAll(strings.ReplaceAll(strings.TrimPrefix(c.CommandPath(), "leadsync "), " ", "_"), "-", "_")
		if _, err := os.Stat("cmd_" + name + ".go"); err != nil {
			t.Errorf("%s: no file cmd_%s.go", c.CommandPath(), name)
		}
		if c.HasSubCommands() {
			return // a group: it only lists its commands
		}
		if _, err := os.Stat(filepath.Join("arguments", name+".go")); err != nil {
			t.Errorf("%s: no parser arguments/%s.go", c.CommandPath(), name)
		}
	}
	walk(root)
}
