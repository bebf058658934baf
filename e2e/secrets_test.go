package e2e

// Secrets never leave memory: the API key and the database password are in
// no output, log line, error or file written.

import (
	"archive/zip"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/sandbox"
	"github.com/leadsync/leadsync/internal/testenv"
)

// secretKey is recognisable anywhere it might leak: in a file, an output
// stream, a log line, a URL-escaped or JSON-escaped string.
const secretKey = "lsk-SECRET-7f3a9c21e5d84b06"

// secretsConfig gives the key through a sensitive variable, the way the
// configuration docs (docs/configuration.md) recommend for a key kept
// outside the environment.
const secretsConfig = `
variable "sandbox_url" {
  type = string
}

variable "api_key" {
  type      = string
  sensitive = true
  validation {
    condition     = length(var.api_key) > 10
    error_message = "The API key looks too short."
  }
}

api {
  base_url    = var.sandbox_url
  api_key     = var.api_key
  rate_limit  = 20
  parallelism = 2
}

search "cto" {
  for_each    = toset(["Berlin", "Hamburg"])
  keywords    = "CTO"
  city        = each.value
  max_results = 4
}

profile "founder" {
  page_name = "Max_Mustermann"
}

enrich "contacts" {
  from = [search.cto, profile.founder]
}

export "xlsx" {
  path = "out/leads.xlsx"
  sheet "CTOs" {
    from = [search.cto, profile.founder]
  }
}

export "csv" {
  path = "out/leads.csv"
  sheet "All" {
    from = [search.cto]
  }
}
`

// envKeyConfig is secretsConfig with the key left to LEADSYNC_API_KEY; the
// sensitive variable stays, unused, with the same value.
func envKeyConfig() string {
	c := strings.Replace(secretsConfig, "  api_key     = var.api_key\n", "", 1)
	c = strings.ReplaceAll(c, "var.api_key", "var.unused_secret")
	return strings.Replace(c, `variable "api_key"`, `variable "unused_secret"`, 1)
}

// TestSecretsNeverWritten runs every command with debug logging on, a
// recognisable key (once from LEADSYNC_API_KEY, once from a sensitive
// variable) and checks that the key appears in no output stream and no file
// written under the project (state, journal, backup, saved plan, exports
// including the XML inside the XLSX, the cached catalog); that the state,
// backup and journal are 0600; that .leadsync/.gitignore exists; and that
// the debug log shows requests and timings with the key redacted.
func TestSecretsNeverWritten(t *testing.T) {
	testenv.SkipIfShort(t, "runs real processes against a sandbox")
	t.Parallel()
	for _, tc := range []struct {
		name   string
		config string
		env    []string
	}{
		{"key from LEADSYNC_API_KEY", envKeyConfig(), []string{"LEADSYNC_API_KEY=" + secretKey}},
		{"key from a sensitive variable", secretsConfig, []string{"LEADSYNC_API_KEY=", "LEADSYNC_VAR_api_key=" + secretKey}},
	} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, sandbox.Options{Seed: 5, Key: secretKey}, tc.config)
			h.env = append(h.env, "LEADSYNC_LOG=debug", "LEADSYNC_VAR_unused_secret="+secretKey)
			h.env = append(h.env, tc.env...)
			var outs []result
			run := func(want int, args ...string) result {
				t.Helper()
				r := h.run(args...)
				if r.code != want {
					t.Fatalf("want exit %d:\n%s", want, r)
				}
				outs = append(outs, r)
				return r
			}
			run(0, "validate")
			run(0, "fmt", "--check")
			run(0, "fields")
			run(0, "fields", "--refresh")
			run(0, "usage")
			run(0, "plan")
			run(0, "plan", "--json")
			run(0, "plan", "--out", "leads.plan")
			run(0, "show", "leads.plan")

			// An apply killed mid-run leaves the database's write-ahead
			// log behind: it must be 0600 and hold no secret either.
			h.applyKilled(2)
			if _, err := os.Stat(h.statePath() + "-wal"); err != nil {
				t.Fatalf("no write-ahead log after a killed apply: %v", err)
			}
			scanTree(t, h.dir, secretKey)
			checkModes(t, h)
			run(0, "force-unlock", "--force", h.lockLeft())

			ar := h.applyJSON(nil, "--target", `search.cto["Berlin"]`)
			if ar.code != 0 {
				t.Fatalf("apply --json:\n%s", ar.result)
			}
			outs = append(outs, ar.result)
			applied := run(0, "apply", "--auto-approve")
			run(0, "show")
			run(0, "show", "--json")
			list := run(0, "state", "list")
			for _, addr := range strings.Fields(list.stdout) {
				if strings.Contains(addr, ".") {
					run(0, "state", "show", addr)
				}
			}
			run(0, "export")
			run(0, "apply", "--auto-approve") // nothing left: no changes

			// Debug logging shows the requests and their timings, with the
			// key redacted.
			for _, want := range []string{"api call", "path=/v1/scrap", "duration=", "status=200", "api_key=" + "[redacted]"} {
				if !strings.Contains(applied.stderr, want) {
					t.Errorf("the debug log of apply does not show %q:\n%s", want, applied.stderr)
				}
			}
			for _, r := range outs {
				for name, s := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
					if i := strings.Index(s, secretKey); i >= 0 {
						t.Errorf("the key is in the %s of leadsync %s: ...%s...", name, strings.Join(r.args, " "), s[max(0, i-80):min(len(s), i+80)])
					}
				}
			}
			for _, f := range []string{"out/leads.xlsx", "out/leads.csv", "leads.plan", ".leadsync/state.db", ".leadsync/fields.json"} {
				if _, err := os.Stat(filepath.Join(h.dir, f)); err != nil {
					t.Errorf("%s was not written, so it was not scanned: %v", f, err)
				}
			}
			scanTree(t, h.dir, secretKey)
			checkModes(t, h)
		})
	}
}

// TestSecretsInErrors checks the paths where a key is most likely to slip
// into a message: a wrong key (the service's 403), a sensitive value that
// fails its validation, and a key given as a literal in the configuration.
func TestSecretsInErrors(t *testing.T) {
	testenv.SkipIfShort(t, "runs real processes against a sandbox")
	t.Parallel()
	h := newHarness(t, sandbox.Options{Seed: 5, Key: secretKey}, secretsConfig)
	h.env = append(h.env, "LEADSYNC_LOG=debug")

	wrong := "lsk-WRONG-0000111122223333"
	h.env = append(h.env, "LEADSYNC_VAR_api_key="+wrong)
	r := h.run("apply", "--auto-approve")
	if r.code != 1 || !strings.Contains(r.stderr, "403") || strings.Contains(r.stdout+r.stderr, wrong) {
		t.Errorf("a wrong key: want exit 1, a 403 and no key in the output:\n%s", r)
	}

	short := "lsk-SHORT"
	h.env = append(h.env, "LEADSYNC_VAR_api_key="+short)
	r = h.run("validate")
	if r.code != 1 || !strings.Contains(r.stderr, "too short") || strings.Contains(r.stdout+r.stderr, short) {
		t.Errorf("a sensitive value failing validation: want exit 1, the rule's message and no value:\n%s", r)
	}

	literal := strings.Replace(secretsConfig, "api_key     = var.api_key", "api_key     = \""+secretKey+"\"", 1)
	h.writeConfig(literal)
	h.env = append(h.env, "LEADSYNC_VAR_api_key=lsk-UNUSED-but-long-enough")
	r = h.run("validate")
	if r.code != 0 || strings.Contains(r.stdout+r.stderr, secretKey) {
		t.Errorf("a literal key in the configuration is echoed:\n%s", r)
	}
	if !strings.Contains(r.stderr, "API key written in the configuration") {
		t.Errorf("a literal key in the configuration gets no warning:\n%s", r)
	}
	h.writeConfig(secretsConfig)
	scanTree(t, h.dir, secretKey, wrong, short)
}

// TestPGConnStrNeverPrinted: a connection string with a password, to a
// server that is not there, gives errors without the password, whatever
// the command.
func TestPGConnStrNeverPrinted(t *testing.T) {
	testenv.SkipIfShort(t, "runs real processes")
	t.Parallel()
	h := newProject(t, "leadsync {\n  backend \"pg\" {}\n}\napi {\n  sandbox = true\n}\nsearch \"a\" {\n  keywords = \"CTO\"\n}\n")
	env := h.env
	for _, cs := range []string{
		"postgres://leads:Sup3rS3cretPw@127.0.0.1:1/leads?connect_timeout=5",
		"host=127.0.0.1 port=1 user=leads password=Sup3rS3cretPw dbname=leads connect_timeout=5",
	} {
		h.env = append(env, "LEADSYNC_PG_CONN_STR="+cs)
		for _, args := range [][]string{{"plan"}, {"apply", "--auto-approve"}, {"show"}, {"export"}, {"state", "list"}, {"state", "pull"}, {"workspace", "list"}, {"force-unlock", "x"}} {
			r := h.run(args...)
			if r.code == 0 {
				t.Errorf("%v with no server succeeded:\n%s", args, r)
			}
			if strings.Contains(r.output(), "Sup3rS3cretPw") {
				t.Errorf("%v prints the database password:\n%s", args, r)
			}
		}
	}
}

// scanTree fails the test when any file under dir contains one of secrets;
// XLSX files are searched entry by entry (the XML is compressed).
func scanTree(t *testing.T, dir string, secrets ...string) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		n++
		check := func(where string, b []byte) {
			for _, s := range secrets {
				if strings.Contains(string(b), s) {
					t.Errorf("%s contains the secret %q", where, s)
				}
			}
		}
		check(rel, b)
		if strings.HasSuffix(path, ".xlsx") {
			zr, err := zip.NewReader(strings.NewReader(string(b)), int64(len(b)))
			if err != nil {
				t.Errorf("%s is not a zip: %v", rel, err)
				return nil
			}
			for _, f := range zr.File {
				rc, err := f.Open()
				if err != nil {
					t.Errorf("%s: %s: %v", rel, f.Name, err)
					continue
				}
				xb, err := io.ReadAll(rc)
				rc.Close()
				if err != nil {
					t.Errorf("%s: %s: %v", rel, f.Name, err)
				}
				check(rel+":"+f.Name, xb)
				n++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no file scanned")
	}
}

// checkModes checks that the files holding personal data are 0600 and that
// .leadsync has its .gitignore.
func checkModes(t *testing.T, h *harness) {
	t.Helper()
	for _, p := range []string{h.statePath(), h.statePath() + "-wal", h.statePath() + "-shm", h.statePath() + ".backup"} {
		fi, err := os.Stat(p)
		if err != nil {
			continue // not every file exists at every moment
		}
		if perm := fi.Mode().Perm(); perm != 0o600 {
			t.Errorf("%s has mode %o, want 600", filepath.Base(p), perm)
		}
	}
	if _, err := os.Stat(h.statePath()); err != nil {
		t.Errorf("no state file: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(h.dir, ".leadsync", ".gitignore"))
	if err != nil || !strings.Contains(string(b), "*") {
		t.Errorf(".leadsync/.gitignore missing or not ignoring everything: %v %q", err, b)
	}
}
