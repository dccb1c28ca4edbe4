package collector

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

var (
	// root is the repository.
	root string
	// otelcol is the collector built from examples/collector/builder.yaml.
	otelcol string
	// cursorOtel, fakeAgent and fakeACP are built from the repository for
	// the run.
	cursorOtel, fakeAgent, fakeACP string
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cursor-otel-collector")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := 1
	if err := setup(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
	} else {
		code = m.Run()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

func setup(dir string) error {
	var err error
	if root, err = filepath.Abs("../.."); err != nil {
		return err
	}
	if otelcol, err = collectorBinary(); err != nil {
		return err
	}
	cursorOtel, fakeAgent, fakeACP = filepath.Join(dir, "cursor-otel"), filepath.Join(dir, "fakeagent"), filepath.Join(dir, "fakeacp")
	for out, pkg := range map[string]string{cursorOtel: ".", fakeAgent: "./test/fakeagent", fakeACP: "./test/fakeacp"} {
		cmd := exec.Command("go", "build", "-o", out, pkg)
		cmd.Dir = root
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("build %s: %v\n%s", pkg, err, b)
		}
	}
	return nil
}

// buildDeadline bounds a cold build of the collector: minutes on two
// cores (run the tests with -timeout 60m when nothing is cached).
const buildDeadline = 45 * time.Minute

// collectorBinary is the collector examples/collector/build.sh builds,
// kept outside the repository under a name made of what it was built
// from (the manifest, the script, Go and the platform), so that it is
// built once for as long as those stay the same: a cold build takes
// minutes.
func collectorBinary() (string, error) {
	h := sha256.New()
	for _, f := range []string{"examples/collector/builder.yaml", "examples/collector/build.sh"} {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			return "", err
		}
		h.Write(b)
	}
	fmt.Fprintf(h, "%s %s/%s", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		cache = filepath.Join(home, ".cache")
	}
	path := filepath.Join(cache, "cursor-otel", "collector-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(path); err == nil {
		fmt.Printf("collector: %s (cached)\n", path)
		return path, nil
	}
	began := time.Now()
	var out bytes.Buffer
	// In a process group of its own, killed whole if it runs past the
	// deadline.
	ctx, cancel := context.WithTimeout(context.Background(), buildDeadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(root, "examples/collector/build.sh"), path)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("examples/collector/build.sh: %v\n%s", err, out.Bytes())
	}
	fmt.Printf("collector: built %s in %s\n", path, time.Since(began).Round(time.Second))
	return path, nil
}
