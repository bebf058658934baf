package plan

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// planMagic starts every saved plan file, so that Load can tell a plan from
// any other JSON file before trusting it.
const planMagic = "leadsync-plan"

// savedPlan is the content of a plan file: a marker, the checksum of the
// file and the plan.
type savedPlan struct {
	Kind     string `json:"kind"`
	Checksum string `json:"checksum,omitempty"`
	*Plan
}

// checksumPrefix starts a plan file's checksum: the SHA-256 of the whole
// file with the checksum's own hex digits as zeros (checksumBlank).
const checksumPrefix = "sha256:"

var checksumBlank = checksumPrefix + strings.Repeat("0", 64)

// ErrEdited is wrapped by Load's error for a plan file whose content does
// not match its checksum: it was changed after plan --out wrote it.
var ErrEdited = errors.New("the plan file was changed after it was saved")

// withChecksum fills in the checksum of the encoded plan file b, whose
// checksum is checksumBlank.
func withChecksum(b []byte) []byte {
	field := []byte(`"checksum": "` + checksumBlank + `"`)
	i := bytes.Index(b, field)
	if i < 0 {
		return b
	}
	sum := sha256.Sum256(b)
	out := append([]byte{}, b...)
	copy(out[i+len(`"checksum": "`+checksumPrefix):], hex.EncodeToString(sum[:]))
	return out
}

// checkChecksum reports whether data, a plan file whose checksum field
// says want, is byte for byte the file Save wrote.
func checkChecksum(data []byte, want string) bool {
	if !strings.HasPrefix(want, checksumPrefix) || len(want) != len(checksumBlank) {
		return false
	}
	field := []byte(`"checksum": "` + want + `"`)
	if bytes.Count(data, field) != 1 {
		return false
	}
	blank := bytes.Replace(data, field, []byte(`"checksum": "`+checksumBlank+`"`), 1)
	sum := sha256.Sum256(blank)
	return hex.EncodeToString(sum[:]) == want[len(checksumPrefix):]
}

// Save writes p to path (mode 0600) atomically: a temporary file in the same
// directory, synced, then renamed. The plan holds the lineage, serial and
// config hash it was made from, the targets and the changes; never the API
// key, and sensitive values are redacted from details by Build.
func Save(path string, p *Plan) error {
	p.normalize()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(savedPlan{Kind: planMagic, Checksum: checksumBlank, Plan: p}); err != nil {
		return fmt.Errorf("encoding the plan: %w", err)
	}
	content := withChecksum(buf.Bytes())
	dir := filepath.Dir(path)
	if err := CheckTarget(path); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		// The temporary name means nothing to the user: name the folder.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("saving the plan to %s: the folder %s does not exist; create it or save the plan elsewhere", path, dir)
		}
		return fmt.Errorf("saving the plan to %s: cannot create a file in %s: %w", path, dir, err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename this fails harmlessly
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("saving the plan to %s: %w", path, err)
	}
	if _, err := tmp.Write(content); err != nil {
		tmp.Close()
		return fmt.Errorf("saving the plan to %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("saving the plan to %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("saving the plan to %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("saving the plan to %s: %w", path, err)
	}
	return nil
}

// CheckTarget reports, without writing anything, why a plan could not be
// saved to path: a directory, a folder that does not exist, a file that is
// not a plan (checkOverwrite). plan --out runs it before any call, so that
// a refusal costs nothing; Save runs it again.
func CheckTarget(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("saving the plan to %s: that is a directory; give a file name, like %s", path, filepath.Join(path, "leads.plan"))
	}
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("saving the plan to %s: the folder %s does not exist; create it or save the plan elsewhere", path, dir)
	}
	return checkOverwrite(path)
}

// checkOverwrite refuses to save a plan over a file that is not a plan: a
// configuration file, the state, anything else the user keeps there. An
// earlier plan, an empty file and a missing one may be written.
func checkOverwrite(path string) error {
	base := filepath.Base(path)
	for _, suffix := range []string{config.ConfigSuffix, ".leadvars.hcl"} {
		if strings.HasSuffix(base, suffix) {
			return fmt.Errorf("saving the plan to %s: a %s file is configuration, never a plan; save the plan under another name, like leads.plan", path, suffix)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil // missing (or unreadable: the write says why)
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	head = bytes.TrimSpace(head[:n])
	if len(head) == 0 || bytes.Contains(head, []byte(`"kind": "`+planMagic+`"`)) || bytes.Contains(head, []byte(`"kind":"`+planMagic+`"`)) {
		return nil
	}
	return fmt.Errorf("saving the plan to %s: the file exists and is not a leadsync plan; leadsync does not overwrite it. Save the plan under another name, like leads.plan, or remove the file first", path)
}

// ErrNotPlan is wrapped by Load's error for a file that is no leadsync plan.
var ErrNotPlan = errors.New("not a leadsync plan file")

// Load reads a plan saved by Save.
func Load(path string) (*Plan, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		// Name the file once, as the user wrote it (the PathError repeats it).
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("reading plan file %s: %w; save one with \"leadsync plan --out %s\"", path, err, path)
		}
		return nil, fmt.Errorf("reading plan file %s: %w", path, err)
	}
	return Decode(path, data)
}

// Decode parses the content of a plan file; name is used in errors only.
func Decode(name string, data []byte) (*Plan, error) {
	path := name
	var head struct {
		Kind          string `json:"kind"`
		FormatVersion string `json:"format_version"`
		Checksum      string `json:"checksum"`
	}
	if err := json.Unmarshal(data, &head); err != nil || head.Kind != planMagic {
		return nil, fmt.Errorf("%s: %w (save a plan with \"leadsync plan --out leads.plan\", then give that file)", path, ErrNotPlan)
	}
	if head.FormatVersion != FormatVersion {
		return nil, fmt.Errorf("%s: plan format_version %q; this leadsync reads %q. Make the plan again with this version", path, head.FormatVersion, FormatVersion)
	}
	if !checkChecksum(data, head.Checksum) {
		// A saved plan runs exactly as it was reviewed: an edit (an
		// up-to-date search made to run, a bound lowered) would make
		// apply do something else than the plan that was shown.
		return nil, fmt.Errorf("%s: %w: its content does not match its checksum (edited by hand, or damaged). A saved plan runs exactly as it was made; make it again with \"leadsync plan --out %s\"", path, ErrEdited, filepath.Base(path))
	}
	return decodeBody(path, data)
}

// decodeBody parses the plan of a plan file whose kind, format and
// checksum were checked.
func decodeBody(path string, data []byte) (*Plan, error) {
	p := &Plan{}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&savedPlan{Plan: p}); err != nil {
		return nil, fmt.Errorf("%s: damaged plan file: %v", path, err)
	}
	for i, c := range p.Changes {
		if c == nil || c.Address == "" {
			return nil, fmt.Errorf("%s: damaged plan file: change %d has no address", path, i+1)
		}
	}
	p.normalize()
	return p, nil
}

// ErrStale is wrapped by Stale's error.
var ErrStale = errors.New("saved plan is stale")

// Stale returns an error (wrapping ErrStale) when p was made from another
// state or configuration than cfg and st: a saved plan may only be applied
// to exactly what it was made from. A plan made before any state existed
// matches a state that still has never been written.
func (p *Plan) Stale(cfg *config.Config, st *state.State) error {
	lineage, serial := "", uint64(0)
	if st != nil {
		lineage, serial = st.Lineage, st.Serial
	}
	switch {
	case workspaceOf(p.Workspace) != workspaceOf(cfg.Workspace):
		made, now := orDefault(p.Workspace), orDefault(cfg.Workspace)
		return fmt.Errorf("%w: it was made in workspace %q, and this command uses workspace %q; apply it in its workspace: leadsync --workspace %s apply PLANFILE", ErrStale, made, now, made)
	case p.ConfigHash != cfg.Hash:
		return fmt.Errorf("%w: the configuration (or a variable value) changed since the plan was made; run \"leadsync plan\" again", ErrStale)
	case p.Serial == 0 && serial == 0:
		// Neither state was ever written; a fresh state has a new lineage
		// each time it is made in memory.
		return nil
	case p.Serial == 0:
		return fmt.Errorf("%w: there was no state when the plan was made, and now there is (serial %d); run \"leadsync plan\" again", ErrStale, serial)
	case p.Lineage != lineage:
		return fmt.Errorf("%w: it was made from another state (lineage %s, now %s); run \"leadsync plan\" again", ErrStale, orNone(p.Lineage), orNone(lineage))
	case p.Serial != serial:
		return fmt.Errorf("%w: the state changed since the plan was made (serial %d, now %d); run \"leadsync plan\" again", ErrStale, p.Serial, serial)
	}
	return nil
}

// workspaceOf is the workspace as a plan records it: "" for the default
// one (and so in plans made before workspaces were recorded).
func workspaceOf(ws string) string {
	if ws == state.DefaultWorkspace {
		return ""
	}
	return ws
}

func orDefault(ws string) string {
	if ws == "" {
		return state.DefaultWorkspace
	}
	return ws
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// DecodeBase parses the plan to compare with (plan --compare-to): the
// output of plan --json, or a saved plan file. name is used in errors.
func DecodeBase(name string, data []byte) (*Plan, error) {
	var head struct {
		Kind          string           `json:"kind"`
		FormatVersion *string          `json:"format_version"`
		Changes       *json.RawMessage `json:"changes"`
		Totals        *json.RawMessage `json:"totals"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("%s: not a plan (%v); make it with \"leadsync plan --json > %s\" on the base branch", name, err, name)
	}
	if head.Kind == planMagic {
		return Decode(name, data)
	}
	if head.FormatVersion == nil || head.Changes == nil || head.Totals == nil {
		return nil, fmt.Errorf("%s: not the output of leadsync plan --json (no format_version, changes and totals); make it with \"leadsync plan --json > %s\" on the base branch", name, name)
	}
	if *head.FormatVersion != FormatVersion {
		return nil, fmt.Errorf("%s: plan format_version %q; this leadsync reads %q. Make the base plan with this version", name, *head.FormatVersion, FormatVersion)
	}
	p := &Plan{}
	if err := json.Unmarshal(data, p); err != nil {
		return nil, fmt.Errorf("%s: damaged plan: %v", name, err)
	}
	for i, c := range p.Changes {
		if c == nil || c.Address == "" {
			return nil, fmt.Errorf("%s: damaged plan: change %d has no address", name, i+1)
		}
	}
	p.normalize()
	return p, nil
}
