package e2e

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The pages a user reads: README.md and every page under docs/.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"README.md"}, pages...)
}

// A runnable block is a ```console block after a <!-- runnable --> line:
// each "$ " line is a command, and the lines up to the next one are what
// it prints (stdout and stderr, as a terminal shows them).
type runnableBlock struct {
	page, line string
	steps      []step
}

type step struct {
	command string
	want    []string
}

func runnableBlocks(t *testing.T, page string) []runnableBlock {
	t.Helper()
	f, err := os.Open(page)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []runnableBlock
	var b *runnableBlock
	marked, n := false, 0
	s := bufio.NewScanner(f)
	for s.Scan() {
		n++
		line := s.Text()
		switch {
		case b != nil && line == "```":
			blocks = append(blocks, *b)
			b = nil
		case b != nil && strings.HasPrefix(line, "$ "):
			b.steps = append(b.steps, step{command: strings.TrimPrefix(line, "$ ")})
		case b != nil:
			if len(b.steps) == 0 {
				t.Fatalf("%s:%d: a runnable block's first line is a $ command", page, n)
			}
			last := &b.steps[len(b.steps)-1]
			last.want = append(last.want, line)
		case strings.TrimSpace(line) == "<!-- runnable -->":
			marked = true
		case marked && line == "```console":
			b = &runnableBlock{page: page, line: page + ":" + strconv.Itoa(n)}
			marked = false
		case marked && strings.TrimSpace(line) != "":
			t.Fatalf("%s:%d: <!-- runnable --> is not followed by a ```console block", page, n)
		}
	}
	if b != nil {
		t.Fatalf("%s: the runnable block at %s never ends", page, b.line)
	}
	return blocks
}

// What varies from run to run and is not the docs' to fix: a trace id
// (random), the directory a run started in, a user's home.
var (
	traceIDs = regexp.MustCompile(`\b[0-9a-f]{32}\b`)
	comment  = regexp.MustCompile(`\s+# .*$`)
)

func normalise(text, home, dir string) string {
	text = strings.ReplaceAll(text, home, "~")
	text = strings.ReplaceAll(text, dir, ".")
	return traceIDs.ReplaceAllString(text, "TRACE_ID")
}

// defaultCollectorUp says whether something answers on the default OTLP
// endpoint: then the blocks that show what happens without a collector
// cannot be run as written on this machine.
func defaultCollectorUp() bool {
	c, err := net.DialTimeout("tcp", "127.0.0.1:4317", 200*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// TestDocsRunnable runs each runnable block of the README and docs/ with
// the built binary, as a newcomer would in a fresh directory holding the
// project's examples, and compares what it prints with what the page shows.
func TestDocsRunnable(t *testing.T) {
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	collectorUp := defaultCollectorUp()
	count := 0
	for _, page := range docPages(t) {
		for _, b := range runnableBlocks(t, page) {
			count++
			t.Run(b.line, func(t *testing.T) {
				if collectorUp && blockNeedsNoCollector(b) {
					t.Skip("something listens on localhost:4317; this block shows a run without a collector")
				}
				runBlock(t, root, b)
			})
		}
	}
	if count == 0 {
		t.Fatal("no runnable blocks found")
	}
}

func blockNeedsNoCollector(b runnableBlock) bool {
	for _, s := range b.steps {
		if strings.Contains(strings.Join(s.want, "\n"), "localhost:4317") {
			return true
		}
	}
	return false
}

func runBlock(t *testing.T, root string, b runnableBlock) {
	dir, home := looseTempDir(t), looseTempDir(t)
	if err := os.Symlink(filepath.Join(root, "examples"), filepath.Join(dir, "examples")); err != nil {
		t.Fatal(err)
	}
	env := []string{
		"PATH=" + filepath.Dir(binary) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + home,
	}
	env = append(env, cover.env...)
	for _, s := range b.steps {
		// The pages say "go run ." where a newcomer has a checkout and no
		// binary yet: the built binary is the same program.
		command := comment.ReplaceAllString(s.command, "")
		command = strings.ReplaceAll(command, "go run . ", "cursor-otel ")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, "sh", "-c", command)
		cmd.Dir, cmd.Env = dir, env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		cancel()
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			t.Fatalf("$ %s: %v", s.command, err)
		}
		got := strings.TrimRight(normalise(out.String(), home, dir), "\n")
		want := strings.TrimRight(normalise(strings.Join(s.want, "\n"), home, dir), "\n")
		if got != want {
			t.Errorf("$ %s\nprints:\n%s\n\nthe page shows:\n%s", s.command, got, want)
		}
	}
}

// looseTempDir is a temporary directory removed after the test as far as
// it can be: a hook may start a detached delivery that still writes there,
// which is not the docs' failure.
func looseTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "cursor-otel-docs")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}
