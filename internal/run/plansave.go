package run

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/run/exportrec"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// PlanOut is where plan --out saves a plan: Path as the user wrote it,
// relative to Dir unless absolute, checked against leadsync's own files of
// Config, whose default workspace's state file is at StatePath (absolute,
// or relative to Config.Dir).
type PlanOut struct {
	Config    *config.Config
	StatePath string
	Dir       string
	Path      string
}

// full is the file the plan is saved to.
func (o PlanOut) full() string {
	if filepath.IsAbs(o.Path) {
		return filepath.Clean(o.Path)
	}
	return filepath.Join(o.Dir, o.Path)
}

// Check refuses a file inside leadsync's own state folders: the
// configuration folder's .leadsync/ (state, journal, lock, backup, pace,
// export record, workspaces), the folder of local workspaces beside the
// state file, and in the state file's folder the files of its state
// (state_path, its .journal, .lock and .backup, the pace file, an export
// record). A plan saved over a journal would be replayed as one; a plan
// saved where no journal is yet would be taken for one, and every command
// would then refuse to run. Paths are compared cleaned and without case
// (a case-insensitive file system), with symbolic links of the folders
// resolved too. Check makes no call and writes nothing: plan runs it
// before planning.
func (o PlanOut) Check() error {
	full := o.full()
	cands := []string{full}
	if d, err := filepath.EvalSymlinks(filepath.Dir(full)); err == nil {
		cands = append(cands, filepath.Join(d, filepath.Base(full)))
	}
	cfgDir := o.Dir
	if o.Config != nil && o.Config.Dir != "" {
		cfgDir = o.Config.Dir
	}
	statePath := o.StatePath
	if statePath == "" {
		statePath = config.DefaultStatePath
	}
	if !filepath.IsAbs(statePath) {
		statePath = filepath.Join(cfgDir, statePath)
	}
	stateDir := filepath.Dir(statePath)
	// The backends' own files beside the state file (the registry knows
	// them: the local backend's journal, lock, backup, pace file and
	// workspaces), and the export record.
	backendDirs, ownFiles := backend.OwnFiles(statePath)
	ownDirs := append([]string{filepath.Join(cfgDir, filepath.Dir(filepath.FromSlash(exportrec.Path)))}, backendDirs...)
	for _, c := range cands {
		for _, d := range withResolved(ownDirs) {
			if inside(d, c) {
				return fmt.Errorf("saving the plan to %s: %s is leadsync's own state folder: save the plan elsewhere, like leads.plan", o.Path, o.show(d))
			}
		}
	}
	ownFiles[filepath.Base(exportrec.Path)] = "the export record"
	for _, c := range cands {
		for _, d := range withResolved([]string{stateDir}) {
			if !sameFile(d, filepath.Dir(c)) {
				continue
			}
			for name, what := range ownFiles {
				if strings.EqualFold(name, filepath.Base(c)) {
					return fmt.Errorf("saving the plan to %s: that is %s, in leadsync's own state folder %s: save the plan elsewhere, like leads.plan", o.Path, what, o.show(d))
				}
			}
		}
	}
	// A directory, a missing folder, a file that is not a plan.
	return plan.CheckTarget(full)
}

// show is path p for a message: relative to Dir when inside it.
func (o PlanOut) show(p string) string {
	if o.Dir != "" && inside(o.Dir, p) {
		if rel, err := filepath.Rel(o.Dir, p); err == nil {
			if rel == "." {
				return "."
			}
			return rel + string(filepath.Separator)
		}
	}
	return p + string(filepath.Separator)
}

// withResolved is dirs and, for each that exists, its path with symbolic
// links resolved.
func withResolved(dirs []string) []string {
	out := append([]string(nil), dirs...)
	for _, d := range dirs {
		if r, err := filepath.EvalSymlinks(d); err == nil && r != d {
			out = append(out, r)
		}
	}
	return out
}

// foldPath is p cleaned and lower-cased, for comparing without case.
func foldPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		p = a
	}
	return strings.ToLower(filepath.Clean(p))
}

// sameFile reports whether a and b name one path, without case.
func sameFile(a, b string) bool { return foldPath(a) == foldPath(b) }

// inside reports whether p is dir or inside it, without case.
func inside(dir, p string) bool {
	rel, err := filepath.Rel(foldPath(dir), foldPath(p))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// SavePlan saves p where o says (after o.Check) for a later "leadsync
// apply PATH", which runs exactly it.
func SavePlan(o PlanOut, p *plan.Plan) error {
	if err := o.Check(); err != nil {
		return err
	}
	return plan.Save(o.full(), p)
}

// EarlyState is a state loading in the background since EarlyLoad: plan
// reads the state at its usual place while the configuration is parsed (on
// large states the two take about as long), and uses it only if the
// configuration names that place.
type EarlyState struct {
	where   string
	backend backend.Backend
}

// EarlyLoad starts loading b's state now.
func EarlyLoad(b backend.Backend) *EarlyState {
	return &EarlyState{where: b.Describe(), backend: Preload(b)}
}

// For returns the early-loaded backend when b names the same place (its
// Describe), and b otherwise (also when e is nil).
func (e *EarlyState) For(b backend.Backend) backend.Backend {
	if e == nil || b.Describe() != e.where {
		return b
	}
	return e.backend
}
