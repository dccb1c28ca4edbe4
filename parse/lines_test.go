package parse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

func readLines(t *testing.T, r io.Reader, max int) []Line {
	t.Helper()
	lr := NewLineReader(r, max)
	var lines []Line
	for {
		l, err := lr.Next()
		if err == io.EOF {
			return lines
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		l.Bytes = bytes.Clone(l.Bytes)
		lines = append(lines, l)
	}
}

func TestLineReader(t *testing.T) {
	huge := strings.Repeat("x", 5<<20) // a 5 MB tool result on one line
	tests := []struct {
		name  string
		input string
		want  []string
	}{
		{"LF", "a\nb\n", []string{"a", "b"}},
		{"CRLF", "a\r\nb\r\n", []string{"a", "b"}},
		{"last line without newline", "a\nb", []string{"a", "b"}},
		{"blank lines are lines", "a\n\n\nb\n", []string{"a", "", "", "b"}},
		{"lone CR inside a line is kept", "a\rb\n", []string{"a\rb"}},
		{"invalid UTF-8 is kept", "\xff\xfe\n", []string{"\xff\xfe"}},
		{"empty input", "", nil},
		{"only a newline", "\n", []string{""}},
		{"a line longer than the buffer", huge + "\nend\n", []string{huge, "end"}},
		{"a long last line without newline", "start\n" + huge, []string{"start", huge}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := readLines(t, strings.NewReader(tt.input), 0)
			if len(lines) != len(tt.want) {
				t.Fatalf("got %d lines, want %d", len(lines), len(tt.want))
			}
			for i, l := range lines {
				if string(l.Bytes) != tt.want[i] {
					t.Errorf("line %d: got %d bytes %.20q, want %d bytes %.20q", i+1, len(l.Bytes), l.Bytes, len(tt.want[i]), tt.want[i])
				}
				if l.Num != i+1 {
					t.Errorf("line %d numbered %d", i+1, l.Num)
				}
				if l.Size != len(tt.want[i]) {
					t.Errorf("line %d: Size %d, want %d", i+1, l.Size, len(tt.want[i]))
				}
			}
		})
	}
}

// A reader that returns one byte at a time must give the same lines.
func TestLineReaderOneByteReads(t *testing.T) {
	input := "{\"a\":1}\r\nsecond\n\nlast"
	lines := readLines(t, iotest.OneByteReader(strings.NewReader(input)), 0)
	var got []string
	for _, l := range lines {
		got = append(got, string(l.Bytes))
	}
	if want := []string{`{"a":1}`, "second", "", "last"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestLineReaderTooLong(t *testing.T) {
	input := "short\n" + strings.Repeat("y", 200_000) + "\nafter\n" + strings.Repeat("z", 150_000)
	lines := readLines(t, strings.NewReader(input), 100_000)
	if len(lines) != 4 {
		t.Fatalf("got %d lines, want 4", len(lines))
	}
	if !lines[1].TooLong || lines[1].Size != 200_000 || lines[1].Bytes != nil {
		t.Errorf("line 2: TooLong=%v Size=%d len(Bytes)=%d, want true 200000 0", lines[1].TooLong, lines[1].Size, len(lines[1].Bytes))
	}
	if string(lines[2].Bytes) != "after" || lines[2].Num != 3 {
		t.Errorf("line 3 = %q (num %d), want \"after\" (3): a skipped line must not swallow the next", lines[2].Bytes, lines[2].Num)
	}
	if !lines[3].TooLong || lines[3].Size != 150_000 {
		t.Errorf("line 4: TooLong=%v Size=%d, want true 150000", lines[3].TooLong, lines[3].Size)
	}
}

func TestLineReaderError(t *testing.T) {
	boom := errors.New("boom")
	lr := NewLineReader(io.MultiReader(strings.NewReader("ok\npart"), iotest.ErrReader(boom)), 0)
	if l, err := lr.Next(); err != nil || string(l.Bytes) != "ok" {
		t.Fatalf("first line = %q, %v", l.Bytes, err)
	}
	if _, err := lr.Next(); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the reader's error", err)
	}
}

func TestDecoderSkipsBlankLinesAndNumbersEvents(t *testing.T) {
	input := "\n{\"type\":\"user\"}\n   \nnot json\n\n{\"type\":\"result\"}"
	dec := NewDecoder(strings.NewReader(input))
	var got []string
	eachEvent(t, dec, func(ev Event) {
		switch e := ev.(type) {
		case *Invalid:
			got = append(got, "invalid@"+strconv.Itoa(e.Line))
		default:
			got = append(got, e.Head().Type+"@"+strconv.Itoa(e.Head().Line))
		}
	})
	if want := "user@2 invalid@4 result@6"; strings.Join(got, " ") != want {
		t.Errorf("events = %q, want %q", strings.Join(got, " "), want)
	}
}

// With blank lines kept, a reader can give back every line as it was
// written: its bytes, then its ending.
func TestDecoderGivesLinesBackAsWritten(t *testing.T) {
	input := "Error: not logged in\r\n\n{\"type\":\"user\"}\n  \nlast"
	dec := NewDecoder(strings.NewReader(input), WithBlankLines())
	var b strings.Builder
	var kinds []string
	eachEvent(t, dec, func(ev Event) {
		b.Write(dec.Raw())
		b.WriteString(dec.Ending())
		kinds = append(kinds, strings.TrimPrefix(fmt.Sprintf("%T", ev), "*parse."))
	})
	if b.String() != input {
		t.Errorf("lines given back as %q, want %q", b.String(), input)
	}
	if want := "Invalid Blank Prompt Blank Invalid"; strings.Join(kinds, " ") != want {
		t.Errorf("events %q, want %q", strings.Join(kinds, " "), want)
	}
}

func TestDecoderReportsTooLongLines(t *testing.T) {
	dec := &Decoder{lines: NewLineReader(strings.NewReader(strings.Repeat("a", 100)+"\n{\"type\":\"user\"}\n"), 20)}
	ev, _ := dec.Next()
	inv, ok := ev.(*Invalid)
	if !ok || !errors.Is(inv.Err, ErrLineTooLong) || inv.Size != 100 || inv.Line != 1 {
		t.Fatalf("first event = %#v, want Invalid line 1, 100 bytes, ErrLineTooLong", ev)
	}
	if ev, _ := dec.Next(); ev.Head().Type != "user" {
		t.Fatalf("second event = %#v, want the user event", ev)
	}
}

// TestDecoderTellsOfLongerLines: a caller making room for long lines hears
// of each line longer than those before, while it is read, and of nothing
// else: not of short lines, nor of a long line shorter than an earlier one.
func TestDecoderTellsOfLongerLines(t *testing.T) {
	const kib = 1 << 10
	var stream bytes.Buffer
	for _, n := range []int{10, 300 * kib, 100 * kib, 2 << 20, 5} {
		stream.WriteString(`{"type":"user","text":"` + strings.Repeat("x", n) + `"}` + "\n")
	}
	var heard []int
	dec := NewDecoder(&stream, WithLongLines(func(size int) { heard = append(heard, size) }))
	lines := 0
	eachEvent(t, dec, func(Event) {
		lines++
		switch lines {
		case 1:
			if len(heard) > 0 {
				t.Fatalf("a 10-byte line was told of: %v", heard)
			}
		case 3:
			if last := heard[len(heard)-1]; last > 300*kib+32 {
				t.Fatalf("heard %d after the 100 KiB line; want at most the 300 KiB line's size", last)
			}
		}
	})
	if lines != 5 {
		t.Fatalf("%d events, want 5", lines)
	}
	for i := 1; i < len(heard); i++ {
		if heard[i] <= heard[i-1] {
			t.Fatalf("sizes told of are not each longer than the last: %v", heard)
		}
	}
	// Told before the 2 MiB line was whole: within a read buffer of it.
	if last := heard[len(heard)-1]; last < 2<<20-64*kib || last > 2<<20+32 {
		t.Fatalf("longest told of: %d bytes, want within 64 KiB below 2 MiB", last)
	}
}
