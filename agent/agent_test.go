package agent

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	tests := []struct {
		args       []string
		print      bool
		format     string
		subcommand string
		info       bool
		apiKey     string
		rewritten  []string // WithFormat("stream-json")
	}{
		{[]string{"-p", "fix it"}, true, "", "", false, "",
			[]string{"-p", "--output-format", "stream-json", "fix it"}},
		{[]string{"--print", "--output-format", "json", "fix it"}, true, "json", "", false, "",
			[]string{"--print", "--output-format", "stream-json", "fix it"}},
		{[]string{"-p", "--output-format=text", "fix it"}, true, "text", "", false, "",
			[]string{"-p", "--output-format=stream-json", "fix it"}},
		{[]string{"--model", "ls", "-p", "hi"}, true, "", "", false, "", // "ls" is the model here
			[]string{"--model", "ls", "-p", "--output-format", "stream-json", "hi"}},
		{[]string{"-p", "--", "--output-format", "json"}, true, "", "", false, "", // after --, a prompt
			[]string{"-p", "--output-format", "stream-json", "--", "--output-format", "json"}},
		{[]string{"--api-key", "key_123456", "-p", "x"}, true, "", "", false, "key_123456",
			[]string{"--api-key", "key_123456", "-p", "--output-format", "stream-json", "x"}},
		{[]string{"--api-key=key_123456", "-p"}, true, "", "", false, "key_123456",
			[]string{"--api-key=key_123456", "-p", "--output-format", "stream-json"}},
		{[]string{"agent", "-p", "hi"}, true, "", "", false, "",
			[]string{"agent", "-p", "--output-format", "stream-json", "hi"}},
		{[]string{"--resume", "9abd2389", "-p", "go on"}, true, "", "", false, "",
			[]string{"--resume", "9abd2389", "-p", "--output-format", "stream-json", "go on"}},
		{[]string{"status"}, false, "", "status", false, "", nil},
		{[]string{"-H", "X-Team: a", "mcp", "list"}, false, "", "mcp", false, "", nil},
		{[]string{"fix ls output"}, false, "", "", false, "", []string{"--output-format", "stream-json", "fix ls output"}},
		{[]string{"--help"}, false, "", "", true, "", nil},
		{[]string{"--version"}, false, "", "", true, "", nil},
		{[]string{"--list-models"}, false, "", "", true, "", nil},
		{[]string{"-p", "--output-format"}, true, "", "", false, "", // no value: left for cursor-agent to refuse
			[]string{"-p", "--output-format", "--output-format", "stream-json"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			inv := Parse(tt.args)
			if inv.Print != tt.print || inv.Format != tt.format || inv.Subcommand != tt.subcommand || inv.Info != tt.info || inv.APIKey != tt.apiKey {
				t.Errorf("Parse = print %v format %q subcommand %q info %v key %q; want %v %q %q %v %q",
					inv.Print, inv.Format, inv.Subcommand, inv.Info, inv.APIKey, tt.print, tt.format, tt.subcommand, tt.info, tt.apiKey)
			}
			if tt.rewritten != nil {
				if got := inv.WithFormat(FormatStreamJSON); !slices.Equal(got, tt.rewritten) {
					t.Errorf("WithFormat = %q, want %q", got, tt.rewritten)
				}
				if !slices.Equal(inv.Args, tt.args) {
					t.Errorf("WithFormat changed the original args to %q", inv.Args)
				}
			}
			if (inv.Subcommand != "" || inv.Info) != inv.Untouched() {
				t.Errorf("Untouched() = %v", inv.Untouched())
			}
		})
	}
}

// writeExecutable writes a shell script that says its own name.
func writeExecutable(t *testing.T, path, name string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\necho "+name+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestFind(t *testing.T) {
	dir := t.TempDir()
	self := filepath.Join(dir, "bin", "cursor-otel")
	writeExecutable(t, self, "cursor-otel")
	realAgent := filepath.Join(dir, "real", "cursor-agent")
	writeExecutable(t, realAgent, "the real agent")
	otherAgent := filepath.Join(dir, "other", "agent")
	writeExecutable(t, otherAgent, "agent")

	symlinked := filepath.Join(dir, "symlink")
	os.MkdirAll(symlinked, 0o755)
	if err := os.Symlink(self, filepath.Join(symlinked, "cursor-agent")); err != nil {
		t.Fatal(err)
	}
	hardlinked := filepath.Join(dir, "hardlink")
	os.MkdirAll(hardlinked, 0o755)
	if err := os.Link(self, filepath.Join(hardlinked, "cursor-agent")); err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(dir, "copy")
	writeExecutable(t, filepath.Join(copied, "cursor-agent"), "cursor-otel") // same bytes as self
	notExec := filepath.Join(dir, "noexec")
	os.MkdirAll(notExec, 0o755)
	os.WriteFile(filepath.Join(notExec, "cursor-agent"), []byte("x"), 0o644)

	path := func(dirs ...string) string { return strings.Join(dirs, string(os.PathListSeparator)) }
	tests := []struct {
		name, explicit, path, want string
	}{
		{"first on PATH", "", path(filepath.Dir(realAgent)), realAgent},
		{"cursor-agent before agent", "", path(filepath.Dir(otherAgent), filepath.Dir(realAgent)), realAgent},
		{"agent when there is no cursor-agent", "", path(filepath.Dir(otherAgent)), otherAgent},
		{"skips a symlink to itself", "", path(symlinked, filepath.Dir(realAgent)), realAgent},
		{"skips a hard link to itself", "", path(hardlinked, filepath.Dir(realAgent)), realAgent},
		{"skips a copy of itself", "", path(copied, filepath.Dir(realAgent)), realAgent},
		{"skips what is not executable", "", path(notExec, filepath.Dir(realAgent)), realAgent},
		{"explicit path", otherAgent, path(filepath.Dir(realAgent)), otherAgent},
		{"explicit name on PATH", "agent", path(filepath.Dir(otherAgent)), otherAgent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Find(tt.explicit, tt.path, self)
			if err != nil || got != tt.want {
				t.Errorf("Find = %q, %v; want %q", got, err, tt.want)
			}
		})
	}

	t.Run("not found names what was searched", func(t *testing.T) {
		_, err := Find("", path(symlinked, copied), self)
		var nf *NotFoundError
		if !errors.As(err, &nf) || !strings.Contains(err.Error(), "no cursor-agent or agent on PATH") {
			t.Errorf("err = %v, want a NotFoundError naming cursor-agent and agent", err)
		}
	})
	t.Run("explicit path that does not exist", func(t *testing.T) {
		_, err := Find(filepath.Join(dir, "nope"), "", self)
		var nf *NotFoundError
		if !errors.As(err, &nf) || !strings.Contains(err.Error(), filepath.Join(dir, "nope")) {
			t.Errorf("err = %v, want a NotFoundError naming the path", err)
		}
	})
}

// The reader gets every byte in order, one chunk per read, each with its
// arrival time, and io.EOF after close.
func TestOutput(t *testing.T) {
	o := newOutput(1<<20, false)
	t0 := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	done := make(chan string)
	var arrivals []time.Time
	go func() {
		var got []byte
		buf := make([]byte, 3)
		for {
			n, err := o.Read(buf)
			if n > 0 {
				got = append(got, buf[:n]...)
				arrivals = append(arrivals, o.Arrival())
			}
			if err == io.EOF {
				done <- string(got)
				return
			}
		}
	}()
	o.push([]byte("ab"), t0)
	o.push([]byte("cdefg"), t0.Add(time.Second))
	o.close()
	if got := <-done; got != "abcdefg" {
		t.Fatalf("read %q, want abcdefg", got)
	}
	want := []time.Time{t0, t0.Add(time.Second), t0.Add(time.Second)} // "ab", "cde", "fg"
	if !slices.Equal(arrivals, want) {
		t.Errorf("arrivals %v, want %v: a read never spans two chunks", arrivals, want)
	}
}

// A reader that falls behind loses whole lines, never a join of two: a
// line cut by a full queue ends where the cut began, reading resumes at
// the first whole line after it, and every byte not read is counted.
func TestOutputFallingBehind(t *testing.T) {
	for _, tt := range []struct {
		name     string
		limit    int
		pushes   []string
		read     string
		untraced int64
	}{
		{"nothing dropped", 100, []string{"ab\n", "cd\n"}, "ab\ncd\n", 0},
		{"whole lines dropped", 10, []string{"ab\n", "cdefghij\n", "kl\n"}, "ab\nkl\n", 9},
		{"a line cut", 12, []string{"ab\ncd", "efghijkl", "lm\nno\n"}, "ab\ncd\nno\n", 8 + 3},
		{"cut before the first byte", 4, []string{"abcdef", "g\nh\n"}, "h\n", 6 + 2},
		{"cut at the end", 10, []string{"ab", "cdefghijklmn"}, "ab\n", 12},
		{"a chunk without a line end skipped", 8, []string{"abcdefghi", "hij", "k\nl\n"}, "l\n", 9 + 3 + 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := newOutput(tt.limit, false)
			for _, p := range tt.pushes {
				o.push([]byte(p), time.Time{})
			}
			o.close()
			got, err := io.ReadAll(o)
			if err != nil || string(got) != tt.read {
				t.Errorf("read %q (%v), want %q", got, err, tt.read)
			}
			if n := o.Untraced(); n != tt.untraced {
				t.Errorf("%d bytes untraced, want %d", n, tt.untraced)
			}
		})
	}
}

// Made to wait, an Output holds the pump instead of dropping: its reader
// gets every byte, however small the queue.
func TestOutputWaiting(t *testing.T) {
	o := newOutput(4, true)
	var want strings.Builder
	for i := range 100 {
		fmt.Fprintf(&want, "%02d\n", i)
	}
	go func() {
		for i := range 100 {
			o.push(fmt.Appendf(nil, "%02d\n", i), time.Time{})
		}
		o.close()
	}()
	got, err := io.ReadAll(o)
	if err != nil || string(got) != want.String() || o.Untraced() != 0 {
		t.Errorf("read %d bytes (%v), %d untraced; want all %d", len(got), err, o.Untraced(), want.Len())
	}
}

func TestTail(t *testing.T) {
	tl := newTail(8)
	io.WriteString(tl, "hello ")
	io.WriteString(tl, "wörld!")
	if got := tl.String(); got != " wörld!" {
		t.Errorf("tail = %q, want the last 8 bytes, \" wörld!\"", got)
	}
	cut := newTail(4)
	io.WriteString(cut, "öbcd") // the 4-byte window starts inside ö
	if got := cut.String(); got != "bcd" {
		t.Errorf("tail = %q, want \"bcd\": it starts at a whole rune", got)
	}
}
