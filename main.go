// Command leadsync keeps lead lists defined in HCL in sync with the lead
// service: plan what to fetch, apply it at the rate limit, write spreadsheets.
package main

import (
	"os"

	"github.com/leadsync/leadsync/internal/cli"
)

func main() {
	os.Exit(cli.Main())
}
