package cli

import (
	"fmt"
	"strings"
)

// plural formats n with an English noun, pluralised: "1 call", "2 calls",
// "3 people", "2 addresses", "2 search blocks".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	switch {
	case strings.HasSuffix(noun, "person"):
		noun = strings.TrimSuffix(noun, "person") + "people"
	case strings.HasSuffix(noun, "s"), strings.HasSuffix(noun, "sh"), strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "x"):
		noun += "es"
	default:
		noun += "s"
	}
	return fmt.Sprintf("%d %s", n, noun)
}
