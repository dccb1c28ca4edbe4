package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/cursor-otel/cursor-otel/internal/docnames"
)

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
	for _, f := range wrapNode(parser).Flags {
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
			if n == wrapNode(parser) {
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
		t.Fatalf("only %d flags found on the command line: is settings.Flags embedded in runCmd?", len(own))
	}

	known, err := docnames.InCode(".")
	if err != nil {
		t.Fatal(err)
	}
	for flag := range own {
		known["CURSOR_OTEL_"+strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))] = true
	}
	for _, name := range docnames.Env.FindAllString(page, -1) {
		if !known[name] {
			t.Errorf("docs/settings.md names %s, which the code never reads", name)
		}
	}
}
