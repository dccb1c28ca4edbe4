package e2e

import (
	"bytes"
	"os"
	"regexp"
	"testing"

	"github.com/cursor-otel/cursor-otel/internal/docnames"
)

// attributeNames are the attribute and metric names the pages give in
// code spans: `gen_ai.usage.input_tokens`, `cicd.pipeline.name`, …
var attributeNames = regexp.MustCompile("`((?:gen_ai|cursor|mcp|process|error|telemetry|cicd|vcs)\\.[a-z0-9_.]*[a-z0-9_])")

// TestDocsNames checks the names a user copies from the pages into a
// query or a setting: every attribute or metric name is one the built
// binary holds (its own or a semantic-conventions constant it uses, which
// the linker keeps only when used), and every CURSOR_OTEL_ name is one
// the code reads.
func TestDocsNames(t *testing.T) {
	bin, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	known, err := docnames.InCode(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range docPages(t) {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range attributeNames.FindAllSubmatch(text, -1) {
			if !bytes.Contains(bin, m[1]) {
				t.Errorf("%s names %s, which cursor-otel never records", page, m[1])
			}
		}
		for _, name := range docnames.Env.FindAllString(string(text), -1) {
			if !known[name] && !bytes.Contains(bin, []byte(name)) {
				t.Errorf("%s names %s, which the code never reads", page, name)
			}
		}
	}
}
