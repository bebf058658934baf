package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/views"
)

// showPlan is the saved-plan branch of `leadsync show [--json|--markdown]
// FILE`: it prints the plan saved by `leadsync plan --out FILE` in the same
// form plan printed it, or as a pull-request comment (with the difference
// from the base plan compareTo, when given). For a file that is no plan
// the error wraps plan.ErrNotPlan, so that show can say what it expected.
// path is relative to f.Dir.
func showPlan(f *Factory, path string, asJSON, markdown bool, compareTo string) error {
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
	if markdown {
		var base *plan.Plan
		if compareTo != "" {
			if base, err = loadBasePlan(f, compareTo); err != nil {
				return err
			}
		}
		return views.PlanMarkdown(f.IO.Out, p, base)
	}
	if err := views.NewPlan(f.IO.Out, asJSON, f.IO.ColorOut()).Plan(p); err != nil || asJSON {
		return err
	}
	// Say what the file is and what to do with it: a reviewer reading
	// "show FILE" should know when it was made and that apply checks it.
	_, err = fmt.Fprintf(f.IO.Out, "\nSaved plan made %s. \"leadsync apply %s\" runs exactly this plan, and refuses it if the state or the configuration has changed since.\n",
		p.CreatedAt.UTC().Format("2006-01-02 15:04 UTC"), path)
	return err
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
