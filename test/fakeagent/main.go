// fakeagent stands in for cursor-agent in cursor-otel's end-to-end tests.
// It is driven by environment variables:
//
//	FAKEAGENT_STREAM      a stream-json recording; with --output-format
//	                      stream-json it is written as it is (bytes, line
//	                      endings and all), with json the result line, with
//	                      text (the default) the result's text
//	FAKEAGENT_SPEED       replay timing: the gap between two lines'
//	                      timestamp_ms divided by this (default 100)
//	FAKEAGENT_LINE_DELAY  a fixed pause before each line (a Go duration)
//	FAKEAGENT_REBASE      move the recording's times (timestamp_ms,
//	                      startedAtMs, completedAtMs) to now, on the scale of
//	                      FAKEAGENT_SPEED, so that each line's times agree
//	                      with when it is written, as a live agent's do
//	FAKEAGENT_FLOOD       write the recording this many times over, each
//	                      copy in one write and no pause: an agent flooding
//	                      its stdout
//	FAKEAGENT_GATES       line numbers, comma-separated: before writing each,
//	                      read one byte from stdin (the test opens the gate)
//	FAKEAGENT_TIMES       a file to append "line unix-nanoseconds" to after
//	                      each line is written
//	FAKEAGENT_RECORD      a file to write {args, stdin, env} to
//	FAKEAGENT_RUNS        a file to append each run's arguments to, as
//	                      one JSON array a line: how often it ran, and how
//	FAKEAGENT_READ_STDIN  read stdin to EOF first (a piped prompt)
//	FAKEAGENT_STDERR      text to write to stderr
//	FAKEAGENT_EXIT        the exit status (default 0)
//	FAKEAGENT_KILL        a signal to kill itself with at the end (KILL, SEGV)
//	FAKEAGENT_HANG        after writing, wait for a signal
//	FAKEAGENT_SIGNALS     a file to append each signal received to; then it
//	                      exits 128+N as cursor-agent does
//	FAKEAGENT_ON_SIGNAL   "continue": record each signal and go on, ending
//	                      as if none came (an agent that handles Ctrl-C)
//	FAKEAGENT_PIDFILE     a file to write its pid to, first thing once
//	                      signals are recorded
//	FAKEAGENT_INTERLEAVE  write this many lines before the stream, turn
//	                      about to stdout and stderr, one write each
//	FAKEAGENT_SKEW        a duration added to the times FAKEAGENT_REBASE
//	                      writes: an agent whose clock is off
//	FAKEAGENT_READ_TTY    read a line from /dev/tty first, and write it to
//	                      stdout (an agent that asks at its terminal)
//
// Without FAKEAGENT_STREAM it prints "fakeagent" and its arguments.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	signals := make(chan os.Signal, 4)
	if path := os.Getenv("FAKEAGENT_SIGNALS"); path != "" {
		signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
		keepOn := os.Getenv("FAKEAGENT_ON_SIGNAL") == "continue"
		go func() {
			for sig := range signals {
				appendFile(path, sig.String()+"\n")
				if !keepOn {
					os.Exit(128 + int(sig.(syscall.Signal)))
				}
			}
		}()
	}
	// The pid is written once signals are being recorded: a test that
	// signals on seeing it must not find the agent still without its
	// handler (SIGTERM would end it unrecorded).
	if path := os.Getenv("FAKEAGENT_PIDFILE"); path != "" {
		appendFile(path, fmt.Sprintf("%d\n", os.Getpid()))
	}
	if os.Getenv("FAKEAGENT_READ_TTY") != "" {
		tty, err := os.Open("/dev/tty")
		if err != nil {
			fail(err)
		}
		line, _ := bufio.NewReader(tty).ReadString('\n')
		fmt.Printf("read from the terminal: %s", line)
	}
	if n, _ := strconv.Atoi(os.Getenv("FAKEAGENT_INTERLEAVE")); n > 0 {
		for i := range n {
			if i%2 == 0 {
				fmt.Fprintf(os.Stdout, "line %d on stdout\n", i)
			} else {
				fmt.Fprintf(os.Stderr, "line %d on stderr\n", i)
			}
		}
	}
	var stdin []byte
	if os.Getenv("FAKEAGENT_READ_STDIN") != "" {
		stdin, _ = io.ReadAll(os.Stdin)
	}
	if path := os.Getenv("FAKEAGENT_RUNS"); path != "" {
		if err := appendRun(path, args()); err != nil {
			fail(err)
		}
	}
	if path := os.Getenv("FAKEAGENT_RECORD"); path != "" {
		env := map[string]string{}
		for _, kv := range os.Environ() {
			k, v, _ := strings.Cut(kv, "=")
			env[k] = v
		}
		b, _ := json.Marshal(map[string]any{"args": args(), "stdin": string(stdin), "env": env})
		if err := os.WriteFile(path, b, 0o644); err != nil {
			fail(err)
		}
	}

	if path := os.Getenv("FAKEAGENT_STREAM"); path != "" {
		if err := writeStream(path, format(os.Args[1:])); err != nil {
			fail(err)
		}
	} else {
		fmt.Printf("fakeagent %s\n", strings.Join(os.Args[1:], " "))
	}
	if s := os.Getenv("FAKEAGENT_STDERR"); s != "" {
		fmt.Fprint(os.Stderr, s)
	}
	if os.Getenv("FAKEAGENT_HANG") != "" {
		if os.Getenv("FAKEAGENT_ON_SIGNAL") == "continue" {
			time.Sleep(time.Hour) // until killed
		}
		for {
			time.Sleep(time.Hour) // until a signal ends it (the signal goroutine, or the signal's default)
		}
	}
	if how := os.Getenv("FAKEAGENT_KILL"); how != "" {
		killSelf(how)
	}
	code, _ := strconv.Atoi(os.Getenv("FAKEAGENT_EXIT"))
	os.Exit(code)
}

// format is the --output-format the command line asks for.
func format(args []string) string {
	for i, a := range args {
		if a == "--" {
			break
		}
		if v, ok := strings.CutPrefix(a, "--output-format="); ok {
			return v
		}
		if a == "--output-format" && i+1 < len(args) {
			return args[i+1]
		}
	}
	return "text"
}

func writeStream(path, format string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if n, _ := strconv.Atoi(os.Getenv("FAKEAGENT_FLOOD")); n > 0 && format == "stream-json" {
		for range n {
			if _, err := os.Stdout.Write(data); err != nil {
				return err
			}
		}
		return nil
	}
	lines := splitLines(data)
	if format != "stream-json" {
		for _, l := range lines {
			var r struct {
				Type   string `json:"type"`
				Result string `json:"result"`
			}
			if json.Unmarshal(bytes.TrimSpace(l), &r) == nil && r.Type == "result" {
				if format == "json" {
					fmt.Printf("%s\n", bytes.TrimRight(l, "\r\n"))
				} else {
					fmt.Println(r.Result)
				}
			}
		}
		return nil
	}
	speed, _ := strconv.ParseFloat(os.Getenv("FAKEAGENT_SPEED"), 64)
	if speed <= 0 {
		speed = 100
	}
	fixed, _ := time.ParseDuration(os.Getenv("FAKEAGENT_LINE_DELAY"))
	gates := map[int]bool{}
	for _, g := range strings.Split(os.Getenv("FAKEAGENT_GATES"), ",") {
		if n, err := strconv.Atoi(g); err == nil {
			gates[n] = true
		}
	}
	var prev int64
	for i, l := range lines {
		if gates[i+1] {
			if _, err := os.Stdin.Read(make([]byte, 1)); err != nil {
				return fmt.Errorf("gate before line %d: %w", i+1, err)
			}
		}
		if fixed > 0 {
			time.Sleep(fixed)
		} else if ts := timestamp(l); ts > 0 {
			if prev > 0 && ts > prev {
				time.Sleep(time.Duration(float64(ts-prev) / speed * float64(time.Millisecond)))
			}
			prev = ts
		}
		if os.Getenv("FAKEAGENT_REBASE") != "" {
			l = rebase(l, firstTime(lines), speed)
		}
		if _, err := os.Stdout.Write(l); err != nil { // a write per line, as the agent does
			return err
		}
		if path := os.Getenv("FAKEAGENT_TIMES"); path != "" {
			appendFile(path, fmt.Sprintf("%d %d\n", i+1, time.Now().UnixNano()))
		}
	}
	return nil
}

// splitLines splits after each '\n', keeping the endings and a last line
// without one.
func splitLines(b []byte) [][]byte {
	var lines [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			lines = append(lines, b)
			break
		}
		lines = append(lines, b[:i+1])
		b = b[i+1:]
	}
	return lines
}

func timestamp(line []byte) int64 {
	var v struct {
		TimestampMs int64 `json:"timestamp_ms"`
	}
	_ = json.Unmarshal(bytes.TrimSpace(line), &v)
	return v.TimestampMs
}

var timeField = regexp.MustCompile(`("(?:timestamp_ms|startedAtMs|completedAtMs)":"?)(\d{13})`)

// firstTime is the first timestamp_ms of the recording.
func firstTime(lines [][]byte) int64 {
	for _, l := range lines {
		if ts := timestamp(l); ts > 0 {
			return ts
		}
	}
	return 0
}

// rebase maps every time in the line onto now: the recording's first time
// becomes the moment the first line was written, later ones follow at the
// replay's speed.
func rebase(line []byte, first int64, speed float64) []byte {
	if first == 0 {
		return line
	}
	if startTime.Load() == 0 {
		startTime.Store(time.Now().UnixMilli())
	}
	start := startTime.Load()
	return timeField.ReplaceAllFunc(line, func(m []byte) []byte {
		sub := timeField.FindSubmatch(m)
		ts, _ := strconv.ParseInt(string(sub[2]), 10, 64)
		moved := start + int64(float64(ts-first)/speed) + skew.Milliseconds()
		return append(append([]byte{}, sub[1]...), strconv.FormatInt(moved, 10)...)
	})
}

// startTime is when the first line was written, in Unix milliseconds.
var startTime atomic.Int64

// skew is how far the agent's clock is off (FAKEAGENT_SKEW).
var skew, _ = time.ParseDuration(os.Getenv("FAKEAGENT_SKEW"))

func appendFile(path, s string) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fail(err)
	}
	defer f.Close()
	f.WriteString(s)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "fakeagent:", err)
	os.Exit(99)
}

// appendRun adds a line with args to the file at path, in one write, so
// that runs at once never mix their lines.
func appendRun(path string, args []string) error {
	b, err := json.Marshal(args)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
