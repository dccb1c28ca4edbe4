package filelock_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"github.com/cursor-otel/cursor-otel/internal/ostext"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/filelock"
)

// A process started as the holder takes the lock named in
// FILELOCK_TEST_HOLD, says so on stdout, and keeps it until it is killed.
func TestMain(m *testing.M) {
	if path := os.Getenv("FILELOCK_TEST_HOLD"); path != "" {
		if _, err := filelock.Lock(path, false); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Println("held")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestSecondOpenWaitsOrFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := filelock.Lock(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := filelock.Lock(path, false); !errors.Is(err, filelock.ErrLocked) {
		t.Fatalf("second lock while held: %v, want ErrLocked", err)
	}
	got := make(chan error, 1)
	go func() {
		u, err := filelock.Lock(path, true)
		if err == nil {
			u()
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("a waiting lock returned while held: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	unlock()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a waiting lock never got it after unlock")
	}
	if fi, err := os.Stat(path); err != nil || ostext.KeepsModes && fi.Mode().Perm()&0o077 != 0 {
		t.Errorf("lock file: %v %v, want readable by its owner alone", fi.Mode(), err)
	}
}

func TestKilledHolderFreesIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "FILELOCK_TEST_HOLD="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "held\n" {
		t.Fatalf("holder said %q", line)
	}
	if _, err := filelock.Lock(path, false); !errors.Is(err, filelock.ErrLocked) {
		t.Fatalf("lock held by another process: %v, want ErrLocked", err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for {
		unlock, err := filelock.Lock(path, false)
		if err == nil {
			unlock()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("lock still held after its holder was killed: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
