package cli

import (
	"slices"
	"strings"
	"testing"
)

// TestSingleDashLongFlags lists command lines and what cobra is given:
// Terraform's one-dash long flags get two, and nothing else changes.
func TestSingleDashLongFlags(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plan -out=leads.plan", "plan --out=leads.plan"},
		{"-chdir=dir plan", "--chdir=dir plan"},
		{"-chdir dir apply -auto-approve", "--chdir dir apply --auto-approve"},
		{"plan -var a=1 -var-file x.vars -target=search.cto", "plan --var a=1 --var-file x.vars --target=search.cto"},
		{"apply -auto-approve=true -json", "apply --auto-approve=true --json"},
		{"state list -no-people", "state list --no-people"},
		{"workspace new uk -workspace x", "workspace new uk --workspace x"},
		// A value given as the next argument stays as it is.
		{"plan -var -out=x", "plan --var -out=x"},
		{"plan --out -json", "plan --out -json"},
		// Shorthands, double dashes, unknown names, "-" and what follows "--" stay.
		{"plan -h", "plan -h"},
		{"-help", "--help"},
		{"-version", "--version"},
		{"plan --out=x", "plan --out=x"},
		{"plan -bogus", "plan -bogus"},
		{"forget - -- -out", "forget - -- -out"},
		// A flag of another command is no flag of this one.
		{"validate -out=x", "validate -out=x"},
		{"__complete plan -ou", "__complete plan -ou"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			f, _, _ := configTestFactory(t.TempDir())
			got := singleDashLongFlags(NewRootCmd(f), strings.Fields(tt.in))
			if want := strings.Fields(tt.want); !slices.Equal(got, want) {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}
