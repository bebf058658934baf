package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/leadsync/leadsync/internal/plan"
)

// showPlanFile is the saved-plan branch of `leadsync show [--json] FILE`: it
// prints the plan saved by `leadsync plan --out FILE` in the same form plan
// printed it. For a file that is no plan the error wraps plan.ErrNotPlan,
// so that show can say what it expected. path is relative to f.Dir.
func showPlanFile(f *Factory, path string, asJSON bool) error {
	full := path
	if !filepath.IsAbs(full) {
		full = filepath.Join(f.Dir, full)
	}
	data, err := os.ReadFile(full)
	if err != nil {
		return fmt.Errorf("reading plan file %s: %w", path, planUnwrapPath(err))
	}
	p, err := plan.Decode(path, data)
	if err != nil {
		return err
	}
	if asJSON {
		return plan.RenderJSON(f.IO.Out, p)
	}
	return plan.RenderText(f.IO.Out, p, f.IO.ColorOut())
}

// planUnwrapPath drops the path of a *fs.PathError (the caller names the file as
// the user wrote it).
func planUnwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
