package metrics

import (
	"bufio"
	"bytes"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// RepositoryOf is the name of the git repository dir is in (the
// conventions' vcs.repository.name: the repository alone, without its
// owner or group), from its origin remote's URL; "" when dir is in no
// repository or it has no origin. It reads the files (.git/config, a
// worktree's or submodule's .git pointer and commondir) and starts no
// git process.
func RepositoryOf(dir string) string {
	gitDir := findGitDir(dir)
	if gitDir == "" {
		return ""
	}
	// A linked worktree's own directory holds no config: its commondir
	// names the repository's.
	if common, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		if c := strings.TrimSpace(string(common)); c != "" {
			if !filepath.IsAbs(c) {
				c = filepath.Join(gitDir, c)
			}
			gitDir = c
		}
	}
	config, err := os.ReadFile(filepath.Join(gitDir, "config"))
	if err != nil {
		return ""
	}
	return repoName(originURL(config))
}

// maxDepth bounds the directories walked up.
const maxDepth = 64

// findGitDir is the git directory of the repository dir is in: the
// first .git walking up, a directory, or a file (a worktree, a
// submodule) whose gitdir: line points to it; "" for none.
func findGitDir(dir string) string {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for range maxDepth {
		p := filepath.Join(dir, ".git")
		if fi, err := os.Stat(p); err == nil {
			if fi.IsDir() {
				return p
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return ""
			}
			target, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
			if !ok {
				return ""
			}
			target = strings.TrimSpace(target)
			if !filepath.IsAbs(target) {
				target = filepath.Join(dir, target)
			}
			return target
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
	return ""
}

// originURL is the url of the [remote "origin"] section of a git
// config, "" if none.
func originURL(config []byte) string {
	in := false
	sc := bufio.NewScanner(bytes.NewReader(config))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			in = sectionIsOrigin(line)
			continue
		}
		if !in {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if ok && strings.EqualFold(strings.TrimSpace(key), "url") {
			return strings.Trim(strings.TrimSpace(value), `"`)
		}
	}
	return ""
}

// sectionIsOrigin says a section header is [remote "origin"].
func sectionIsOrigin(header string) bool {
	h := strings.TrimSuffix(strings.TrimPrefix(header, "["), "]")
	name, sub, ok := strings.Cut(h, " ")
	return ok && strings.EqualFold(name, "remote") && strings.TrimSpace(sub) == `"origin"`
}

// repoName is the repository's name in a clone URL
// (https://github.com/org/repo.git, git@host:org/repo.git, a path): its
// last element without .git. A URL's credentials or query never reach it.
func repoName(url string) string {
	if url == "" {
		return ""
	}
	if i := strings.IndexAny(url, "?#"); i >= 0 {
		url = url[:i]
	}
	url = strings.TrimRight(strings.ReplaceAll(strings.ReplaceAll(url, "\\", "/"), ":", "/"), "/")
	name := strings.TrimSuffix(path.Base(url), ".git")
	if name == "." || name == "/" || name == "" {
		return ""
	}
	return name
}
