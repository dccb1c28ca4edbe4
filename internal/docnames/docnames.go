// Package docnames finds the CURSOR_OTEL_ names the program's sources
// read, for the tests that keep the docs in step with the code.
package docnames

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Env matches a CURSOR_OTEL_ name in text.
var Env = regexp.MustCompile(`CURSOR_OTEL_[A-Z0-9_]*[A-Z0-9]`)

// InCode are the CURSOR_OTEL_ names the program's own sources under root
// (not its tests, test data or bench) mention.
func InCode(root string) (map[string]bool, error) {
	out := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != root || d.Name() == "testdata" || d.Name() == "bench" || d.Name() == "test") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, name := range Env.FindAllString(string(b), -1) {
			out[name] = true
		}
		return nil
	})
	return out, err
}
