package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

var envNames = regexp.MustCompile(`CURSOR_OTEL_[A-Z0-9_]*[A-Z0-9]`)

// TestDocsSettings keeps docs/settings.md and the command line in step:
// every flag of every command is there, each of cursor-otel's own with its
// CURSOR_OTEL_ twin, and every CURSOR_OTEL_ name the page gives is one the
// code reads.
func TestDocsSettings(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("docs", "settings.md"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)

	parser, err := kong.New(&cli{}, kong.Name("cursor-otel"), kong.Exit(func(int) {}))
	if err != nil {
		t.Fatal(err)
	}
	own := map[string]bool{}
	for _, f := range parser.Model.Node.Flags {
		own[f.Name] = true
	}
	var visit func(n *kong.Node)
	visit = func(n *kong.Node) {
		for _, f := range n.Flags {
			if f.Name == "help" || f.Hidden {
				continue
			}
			if !strings.Contains(page, "`--"+f.Name) {
				t.Errorf("docs/settings.md does not show --%s (%s)", f.Name, n.Path())
			}
			if n == parser.Model.Node {
				env := "CURSOR_OTEL_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
				if !strings.Contains(page, "`"+env) {
					t.Errorf("docs/settings.md does not show --%s's twin %s", f.Name, env)
				}
			}
		}
		for _, c := range n.Children {
			visit(c)
		}
	}
	visit(parser.Model.Node)
	if len(own) < 10 {
		t.Fatalf("only %d flags found on the command line: is settings.Flags embedded?", len(own))
	}

	known := codeEnvNames(t)
	for flag := range own {
		known["CURSOR_OTEL_"+strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))] = true
	}
	for _, name := range envNames.FindAllString(page, -1) {
		if !known[name] {
			t.Errorf("docs/settings.md names %s, which the code never reads", name)
		}
	}
}

// codeEnvNames are the CURSOR_OTEL_ names the program's own sources (not
// its tests) mention.
func codeEnvNames(t *testing.T) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != "." || d.Name() == "testdata" || d.Name() == "bench") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, name := range envNames.FindAllString(string(b), -1) {
			out[name] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
