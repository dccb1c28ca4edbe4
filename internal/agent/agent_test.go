package agent

import (
	"fmt"
	"io"
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
			[]string{"--output-format", "stream-json", "-p", "fix it"}},
		{[]string{"--print", "--output-format", "json", "fix it"}, true, "json", "", false, "",
			[]string{"--print", "--output-format", "stream-json", "fix it"}},
		{[]string{"-p", "--output-format=text", "fix it"}, true, "text", "", false, "",
			[]string{"-p", "--output-format=stream-json", "fix it"}},
		{[]string{"--model", "ls", "-p", "hi"}, true, "", "", false, "", // "ls" is the model here
			[]string{"--output-format", "stream-json", "--model", "ls", "-p", "hi"}},
		{[]string{"-p", "--", "--output-format", "json"}, true, "", "", false, "", // after --, a prompt
			[]string{"--output-format", "stream-json", "-p", "--", "--output-format", "json"}},
		{[]string{"--api-key", "key_123456", "-p", "x"}, true, "", "", false, "key_123456",
			[]string{"--output-format", "stream-json", "--api-key", "key_123456", "-p", "x"}},
		{[]string{"--api-key=key_123456", "-p"}, true, "", "", false, "key_123456",
			[]string{"--output-format", "stream-json", "--api-key=key_123456", "-p"}},
		{[]string{"agent", "-p", "hi"}, true, "", "", false, "",
			[]string{"agent", "--output-format", "stream-json", "-p", "hi"}},
		{[]string{"--resume", "9abd2389", "-p", "go on"}, true, "", "", false, "",
			[]string{"--output-format", "stream-json", "--resume", "9abd2389", "-p", "go on"}},
		// An option cursor-otel does not know, with its value: nothing is
		// put between them.
		{[]string{"--new-option", "some value", "-p", "hi"}, true, "", "", false, "",
			[]string{"--output-format", "stream-json", "--new-option", "some value", "-p", "hi"}},
		// Combined short flags: -pf is -p -f; -pm takes the model.
		{[]string{"-pf", "fix it"}, true, "", "", false, "",
			[]string{"--output-format", "stream-json", "-pf", "fix it"}},
		{[]string{"-fpm", "status", "hi"}, true, "", "", false, "", // "status" is the model, not the subcommand
			[]string{"--output-format", "stream-json", "-fpm", "status", "hi"}},
		{[]string{"-f", "status"}, false, "", "status", false, "", nil},
		{[]string{"status"}, false, "", "status", false, "", nil},
		{[]string{"-H", "X-Team: a", "mcp", "list"}, false, "", "mcp", false, "", nil},
		// An editor's ACP session, global flags before acp: never rewritten.
		{[]string{"acp"}, false, "", "acp", false, "", nil},
		{[]string{"--api-key", "key_123456", "-e", "https://api2.cursor.sh", "acp"}, false, "", "acp", false, "key_123456", nil},
		{[]string{"--output-format", "json", "acp"}, false, "json", "acp", false, "", nil},
		{[]string{"fix ls output"}, false, "", "", false, "", []string{"--output-format", "stream-json", "fix ls output"}},
		{[]string{"--help"}, false, "", "", true, "", nil},
		{[]string{"--version"}, false, "", "", true, "", nil},
		{[]string{"-v"}, false, "", "", true, "", nil},
		{[]string{"--list-models"}, false, "", "", true, "", nil},
		{[]string{"-p", "--output-format"}, true, "", "", false, "", // no value: left for cursor-agent to refuse
			[]string{"--output-format", "stream-json", "-p", "--output-format"}},
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

// A reader that falls behind loses whole lines, never a join of two: the
// line under way when the queue fills is queued to its end, what follows
// is dropped, reading resumes at the first whole line after the drop, and
// every byte not read is counted. Only a line longer than the longest
// kept is cut.
func TestOutputFallingBehind(t *testing.T) {
	for _, tt := range []struct {
		name     string
		limit    int
		maxLine  int
		pushes   []string
		read     string
		untraced int64
	}{
		{"nothing dropped", 100, 100, []string{"ab\n", "cd\n"}, "ab\ncd\n", 0},
		{"whole lines dropped", 10, 100, []string{"ab\n", "cdefghij\n", "kl\n"}, "ab\nkl\n", 9},
		{"the line under way is finished", 12, 100, []string{"ab\ncd", "efghijkl", "lm\nno\n", "pq\n"}, "ab\ncdefghijkllm\n", 6},
		{"a line in one burst past the limit", 4, 100, []string{"abcdef", "g\nh\n"}, "abcdefg\n", 2},
		{"a line longer than the longest kept is cut", 8, 10, []string{"abc", "defghijklmn", "opq\nr\n"}, "abc\n", 11 + 4 + 2},
		{"an empty queue takes any chunk", 4, 100, []string{"abcdefgh\n", "i\n"}, "abcdefgh\n", 2},
		// A reserve of 6 for chunks of whole lines of at most 4 bytes:
		{"small whole lines pass in the reserve", -6, 100, []string{"abcdefghij\n", "ok\n", "r\n", "toolong\n", "s\n"}, "abcdefghij\nok\nr\n", 10},
		{"after the line under way, in the same chunk", -6, 100, []string{"abcd", "efghij\nok\n"}, "abcdefghij\nok\n", 0},
		{"not a piece of a line", -6, 100, []string{"abcdefghij\n", "ab", "c\n"}, "abcdefghij\n", 4},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := newOutput(max(tt.limit, 4), false)
			o.maxLine, o.smallLine, o.reserve = tt.maxLine, 0, 0
			if tt.limit < 0 {
				o.smallLine, o.reserve = 4, -tt.limit
			}
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
	tl := NewTail(8)
	io.WriteString(tl, "hello ")
	io.WriteString(tl, "wörld!")
	if got := tl.String(); got != " wörld!" {
		t.Errorf("tail = %q, want the last 8 bytes, \" wörld!\"", got)
	}
	cut := NewTail(4)
	io.WriteString(cut, "öbcd") // the 4-byte window starts inside ö
	if got := cut.String(); got != "bcd" {
		t.Errorf("tail = %q, want \"bcd\": it starts at a whole rune", got)
	}
}
