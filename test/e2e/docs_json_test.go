package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	jsonBlock    = regexp.MustCompile("(?ms)^```json\n(.*?)^```")
	printedEntry = regexp.MustCompile("(?ms)^```sh\n(cat <<EOF\n.*?^EOF\n)```")
)

// TestDocsJSON: the JSON a page shows is JSON, and so is what a page's
// `cat <<EOF` block prints once the shell fills in its paths (an editor's
// entry naming cursor-otel by $(command -v cursor-otel)), with the paths
// filled in.
func TestDocsJSON(t *testing.T) {
	home := t.TempDir()
	count := 0
	for _, page := range docPages(t) {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range jsonBlock.FindAllSubmatch(text, -1) {
			count++
			if !json.Valid(m[1]) {
				t.Errorf("%s: a json block is not JSON:\n%s", page, m[1])
			}
		}
		for _, m := range printedEntry.FindAllSubmatch(text, -1) {
			count++
			cmd := exec.Command("sh", "-c", string(m[1]))
			cmd.Env = []string{"PATH=" + filepath.Dir(binary) + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + home}
			out, err := cmd.Output()
			if err != nil {
				t.Errorf("%s: %v running\n%s", page, err, m[1])
				continue
			}
			var entry any
			if err := json.Unmarshal(out, &entry); err != nil {
				t.Errorf("%s: %v; the block prints\n%s", page, err, out)
				continue
			}
			bin, _ := filepath.Abs(binary)
			if !strings.Contains(string(out), `"command": "`+bin+`"`) || !strings.Contains(string(out), `"CURSOR_OTEL_AGENT": "`+home+`/.local/bin/cursor-agent"`) {
				t.Errorf("%s: the entry names no full path of cursor-otel (%s) and of the agent:\n%s", page, bin, out)
			}
		}
	}
	if count == 0 {
		t.Fatal("no JSON in the pages")
	}
}
