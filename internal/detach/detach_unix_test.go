//go:build unix

package detach_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cursor-otel/cursor-otel/internal/detach"
)

// What the detached process found about itself.
type report struct {
	Pid, Pgid, Sid int
	NullStdio      bool
	Arg, Env       string
}

// A process started as the detached one writes its report to
// DETACH_TEST_REPORT and exits.
func TestMain(m *testing.M) {
	if path := os.Getenv("DETACH_TEST_REPORT"); path != "" {
		null, _ := os.Stat(os.DevNull)
		nullStdio := true
		for _, f := range []*os.File{os.Stdin, os.Stdout, os.Stderr} {
			fi, err := f.Stat()
			nullStdio = nullStdio && err == nil && os.SameFile(fi, null)
		}
		pgid, _ := syscall.Getpgid(0)
		sid, _ := unix.Getsid(0)
		b, _ := json.Marshal(report{os.Getpid(), pgid, sid, nullStdio, os.Args[len(os.Args)-1], os.Getenv("DETACH_TEST_ENV")})
		_ = os.WriteFile(path+".tmp", b, 0o600)
		_ = os.Rename(path+".tmp", path)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestStartDetaches(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.json")
	env := []string{"DETACH_TEST_REPORT=" + path, "DETACH_TEST_ENV=given"}
	if err := detach.Start(os.Args[0], []string{"-test.run=^$", "last arg"}, env); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	var b []byte
	for {
		var err error
		if b, err = os.ReadFile(path); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the detached process never reported")
		}
		time.Sleep(10 * time.Millisecond)
	}
	var got report
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	ourSid, _ := unix.Getsid(0)
	if got.Sid != got.Pid || got.Sid == ourSid {
		t.Errorf("session %d (ours %d): want a session of its own, led by %d", got.Sid, ourSid, got.Pid)
	}
	if got.Pgid != got.Pid || got.Pgid == syscall.Getpgrp() {
		t.Errorf("process group %d: want its own, %d", got.Pgid, got.Pid)
	}
	if !got.NullStdio {
		t.Error("stdin, stdout and stderr: want the null device")
	}
	if got.Arg != "last arg" || got.Env != "given" {
		t.Errorf("arg %q env %q: want what Start was given", got.Arg, got.Env)
	}
}

func TestStartMissingProgram(t *testing.T) {
	if err := detach.Start(filepath.Join(t.TempDir(), "absent"), nil, nil); err == nil {
		t.Fatal("starting a program that is not there: no error")
	}
}
