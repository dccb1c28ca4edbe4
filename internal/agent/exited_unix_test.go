//go:build unix

package agent

import (
	"io"
	"os"
	"testing"
)

// Exited is false while the agent runs and true once Wait has seen it end.
func TestExited(t *testing.T) {
	in, feed, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	proc, err := Start(Spec{Path: "/bin/sh", Args: []string{"-c", "read line"}, Stdin: in, Stdout: devnull, Stderr: devnull})
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, proc.Output()) }()
	if proc.Exited() {
		t.Error("Exited while the agent waits for its input")
	}
	_, _ = io.WriteString(feed, "go\n")
	feed.Close()
	if exit := proc.Wait(); exit.Code != 0 {
		t.Fatalf("exit %d", exit.Code)
	}
	if !proc.Exited() {
		t.Error("not Exited after Wait")
	}
}
