package collector

import (
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/otlptest"
	"github.com/cursor-otel/cursor-otel/internal/proctest"
)

// deadline bounds every process a test starts.
const deadline = 15 * time.Minute

// freePort is a port on 127.0.0.1 that nothing listens on now.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// addr is 127.0.0.1:port.
func addr(port int) string { return "127.0.0.1:" + strconv.Itoa(port) }

// collector is one collector process running a shipped config, every
// address on 127.0.0.1.
type collector struct {
	name, config string
	env          map[string]string
	health       string // the health check's URL
	log          string // where its output goes

	mu     sync.Mutex // over cmd, which a restart replaces
	cmd    *exec.Cmd
	exited chan struct{}
}

// newCollector prepares a collector for config (a file in
// examples/collector) with env on top of its defaults; the health check
// and its own telemetry get ports of their own.
func newCollector(t testing.TB, name, config string, env map[string]string) *collector {
	t.Helper()
	c := &collector{name: name, config: filepath.Join(root, "examples/collector", config), env: map[string]string{
		"HEALTH_CHECK_ENDPOINT": addr(freePort(t)),
		"TELEMETRY_HOST":        "127.0.0.1",
		"TELEMETRY_PORT":        strconv.Itoa(freePort(t)),
	}, log: filepath.Join(t.TempDir(), name+".log")}
	for k, v := range env {
		c.env[k] = v
	}
	c.health = "http://" + c.env["HEALTH_CHECK_ENDPOINT"] + "/"
	return c
}

// newSampler is a sampler (examples/collector/sampler.yaml) named name,
// taking OTLP/gRPC on grpcPort and sending what it keeps to store, with
// settings over the defaults of its config (DECISION_WAIT, …).
func newSampler(t testing.TB, name string, grpcPort int, store *otlptest.Receiver, settings map[string]string) *collector {
	t.Helper()
	env := map[string]string{
		"OTLP_GRPC_ENDPOINT":              addr(grpcPort),
		"PROMETHEUS_ENDPOINT":             addr(freePort(t)),
		"SPANMETRICS_PROMETHEUS_ENDPOINT": addr(freePort(t)),
		"FILE_STORAGE_DIR":                t.TempDir(),
		"TRACE_STORE_ENDPOINT":            strings.TrimPrefix(store.Endpoint, "http://"),
	}
	maps.Copy(env, settings)
	return newCollector(t, name, "sampler.yaml", env)
}

// start starts the collector and waits until its health check answers.
func (c *collector) start(t testing.TB) {
	t.Helper()
	logf, err := os.OpenFile(c.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd := exec.Command(otelcol, "--config="+c.config)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	for k, v := range c.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	proctest.Start(t, cmd, deadline)
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	c.mu.Lock()
	c.cmd, c.exited = cmd, exited
	c.mu.Unlock()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s's log, the end:\n%s", c.name, tail(c.log, 4000))
		}
	})
	for end := time.Now().Add(time.Minute); ; {
		resp, err := http.Get(c.health)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-exited:
			t.Fatalf("%s exited at start:\n%s", c.name, tail(c.log, 4000))
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(end) {
			t.Fatalf("%s not healthy after a minute:\n%s", c.name, tail(c.log, 4000))
		}
	}
}

// process is the collector's process now, and what closes when it exits.
func (c *collector) process() (*exec.Cmd, chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cmd, c.exited
}

// kill kills the collector with SIGKILL, as a crash or the OOM killer
// would, and waits for it to be gone.
func (c *collector) kill(t testing.TB) {
	t.Helper()
	cmd, exited := c.process()
	proctest.KillTree(cmd.Process.Pid)
	select {
	case <-exited:
	case <-time.After(time.Minute):
		t.Fatalf("%s still running a minute after SIGKILL", c.name)
	}
}

// stop stops the collector with SIGTERM, as a rolling restart would, and
// waits for it to be gone.
func (c *collector) stop(t testing.TB) {
	t.Helper()
	cmd, exited := c.process()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(time.Minute):
		t.Fatalf("%s still running a minute after SIGTERM", c.name)
	}
}

// rss is the collector's resident memory now and at its peak, in bytes.
func (c *collector) rss() (now, peak int64) {
	cmd, _ := c.process()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			now = kb << 10
		case "VmHWM:":
			peak = kb << 10
		}
	}
	return now, peak
}

// tail is the end of a file, at most n bytes.
func tail(path string, n int) string {
	b, _ := os.ReadFile(path)
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
