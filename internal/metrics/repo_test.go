package metrics

import (
	"os"
	"path/filepath"
	"testing"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A repository's name comes from its origin, read from the files of a
// work tree, a linked worktree (.git file and commondir) and a
// submodule's pointer alike; none without a repository or an origin.
func TestRepositoryOf(t *testing.T) {
	root := t.TempDir()
	config := "[core]\n\tbare = false\n[remote \"upstream\"]\n\turl = https://github.com/other/fork.git\n" +
		"[remote \"origin\"]\n\turl = git@github.com:acme/widgets.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
	main := filepath.Join(root, "main")
	write(t, filepath.Join(main, ".git", "config"), config)
	write(t, filepath.Join(main, "src", "deep", "file.go"), "package x\n")
	// A linked worktree: its .git names its own directory, whose
	// commondir names the repository's.
	wt := filepath.Join(root, "wt")
	write(t, filepath.Join(wt, ".git"), "gitdir: ../main/.git/worktrees/wt\n")
	write(t, filepath.Join(main, ".git", "worktrees", "wt", "commondir"), "../..\n")
	// A repository without an origin; a directory in none.
	write(t, filepath.Join(root, "lonely", ".git", "config"), "[remote \"upstream\"]\n\turl = https://example.com/a/b\n")
	none := filepath.Join(root, "none")
	if err := os.MkdirAll(none, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ dir, want string }{
		{main, "widgets"},
		{filepath.Join(main, "src", "deep"), "widgets"},
		{wt, "widgets"},
		{filepath.Join(root, "lonely"), ""},
		{none, ""},
	} {
		if got := RepositoryOf(tt.dir); got != tt.want {
			t.Errorf("RepositoryOf(%s) = %q, want %q", tt.dir, got, tt.want)
		}
	}
}

func TestRepoName(t *testing.T) {
	for url, want := range map[string]string{
		"https://github.com/open-telemetry/semantic-conventions.git": "semantic-conventions",
		"https://user:token@gitlab.com/group/sub/project":            "project",
		"git@github.com:acme/widgets.git":                            "widgets",
		"ssh://git@host:22/acme/widgets/":                            "widgets",
		"/srv/git/widgets.git":                                       "widgets",
		"https://example.com/a/b.git?ref=x":                          "b",
		"":                                                           "",
	} {
		if got := repoName(url); got != want {
			t.Errorf("repoName(%q) = %q, want %q", url, got, want)
		}
	}
}
