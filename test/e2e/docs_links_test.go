package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	mdLink     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mdHeading  = regexp.MustCompile(`(?m)^#{1,6} (.+)$`)
	notSlugged = regexp.MustCompile(`[^\p{L}\p{N}\- _]`)
	fencedCode = regexp.MustCompile("(?ms)^```.*?^```")
)

// anchors are the fragments GitHub makes of a page's headings.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	for _, m := range mdHeading.FindAllStringSubmatch(text, -1) {
		slug := strings.ToLower(notSlugged.ReplaceAllString(m[1], ""))
		out[strings.ReplaceAll(slug, " ", "-")] = true
	}
	return out
}

// TestDocsLinks checks that every relative link in the README and docs/
// names a file of the repository, and a heading of it when it names one.
func TestDocsLinks(t *testing.T) {
	for _, page := range docPages(t) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		text := fencedCode.ReplaceAllString(string(b), "")
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, fragment, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), file)
			}
			info, err := os.Stat(path)
			if err != nil {
				t.Errorf("%s: link %s: no such file", page, target)
				continue
			}
			if fragment == "" || info.IsDir() || !strings.HasSuffix(path, ".md") {
				continue
			}
			linked, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !anchors(string(linked))[fragment] {
				t.Errorf("%s: link %s: no heading #%s in %s", page, target, fragment, path)
			}
		}
	}
}
