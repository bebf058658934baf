package config

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// gitIdentity is the origin of the git repository that holds dir and
// dir's path in it ("github.com/acme/leads/dach"); "" outside a clone or
// without an origin. It reads the repository's files, runs no git.
func gitIdentity(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for root := abs; ; root = filepath.Dir(root) {
		if origin := originOf(filepath.Join(root, ".git")); origin != "" {
			rel, err := filepath.Rel(root, abs)
			if err != nil || rel == "." {
				return origin
			}
			return origin + "/" + filepath.ToSlash(rel)
		}
		if filepath.Dir(root) == root {
			return ""
		}
	}
}

// originOf reads the origin's address of the repository whose .git is
// dotGit (a folder, or the file of a worktree naming its git folder),
// normalised; "" when there is none.
func originOf(dotGit string) string {
	fi, err := os.Stat(dotGit)
	if err != nil {
		return ""
	}
	gitDir := dotGit
	if !fi.IsDir() {
		b, err := os.ReadFile(dotGit)
		if err != nil {
			return ""
		}
		gitDir = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(b)), "gitdir:"))
		if !filepath.IsAbs(gitDir) {
			gitDir = filepath.Join(filepath.Dir(dotGit), gitDir)
		}
		if common, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
			c := strings.TrimSpace(string(common))
			if !filepath.IsAbs(c) {
				c = filepath.Join(gitDir, c)
			}
			gitDir = c
		}
	}
	f, err := os.Open(filepath.Join(gitDir, "config"))
	if err != nil {
		return ""
	}
	defer f.Close()
	inOrigin := false
	for sc := bufio.NewScanner(f); sc.Scan(); {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			inOrigin = line == `[remote "origin"]`
			continue
		}
		if k, v, ok := strings.Cut(line, "="); inOrigin && ok && strings.TrimSpace(k) == "url" {
			return normalOrigin(strings.TrimSpace(v))
		}
	}
	return ""
}

// normalOrigin writes a remote's address alike for every way of cloning
// it: git@github.com:acme/leads.git, https://github.com/acme/leads and
// ssh://git@github.com/acme/leads.git are all github.com/acme/leads.
func normalOrigin(u string) string {
	if _, rest, ok := strings.Cut(u, "://"); ok {
		u = rest
	} else if host, path, ok := strings.Cut(u, ":"); ok && !strings.Contains(host, "/") {
		u = host + "/" + path // scp-like: git@host:path
	}
	if at := strings.Index(u, "@"); at >= 0 && at < strings.Index(u+"/", "/") {
		u = u[at+1:]
	}
	return strings.TrimSuffix(strings.TrimSuffix(u, "/"), ".git")
}
