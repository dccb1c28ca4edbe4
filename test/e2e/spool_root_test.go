//go:build linux

package e2e

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/golden"
	"github.com/cursor-otel/cursor-otel/internal/otlptest"
	"github.com/cursor-otel/cursor-otel/internal/proctest"
)

// nobody is the user the test runs cursor-otel as, beside root.
const nobody = 65534

// asUser is a place a user other than root can run cursor-otel from: a
// copy of the binary and of the stand-in agent, the example's stream,
// the user's home (its state directory in it), all the user's.
type asUser struct {
	dir, home, binary, agent, stream string
}

func newAsUser(t *testing.T) asUser {
	t.Helper()
	dir, err := os.MkdirTemp("", "cursor-otel-user-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	u := asUser{dir: dir, home: filepath.Join(dir, "home"), binary: filepath.Join(dir, "cursor-otel"),
		agent: filepath.Join(dir, "fakeagent"), stream: filepath.Join(dir, "stream.ndjson")}
	copyFile(t, binary, u.binary, 0o755)
	copyFile(t, fakeAgent, u.agent, 0o755)
	copyFile(t, "examples/fix-failing-test.ndjson", u.stream, 0o644)
	if err := os.Mkdir(u.home, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, u.binary, u.agent, u.stream} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chown(u.home, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	return u
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	syscall.ForkLock.Lock() // see copyBinary
	defer syscall.ForkLock.Unlock()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// run runs cursor-otel as uid (root: as it is, with sudo -E's
// environment: the user's HOME), bounded; args after the binary.
func (u asUser) run(t *testing.T, uid int, endpoint string, args ...string) result {
	t.Helper()
	cmd := exec.Command(u.binary, args...)
	cmd.Dir = u.dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + u.home, "OTEL_EXPORTER_OTLP_ENDPOINT=" + endpoint,
		"OTEL_METRICS_EXPORTER=none", "CURSOR_OTEL_FLUSH_TIMEOUT=1s", "OTEL_EXPORTER_OTLP_TIMEOUT=2000",
		"CURSOR_OTEL_AGENT=" + u.agent, "FAKEAGENT_STREAM=" + u.stream}
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	if uid != 0 {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}
	}
	return runStarted(t, cmd, func() { proctest.Start(t, cmd, 60*time.Second) })
}

// A root run (sudo -E) into the user's spool neither stops the user's
// deliveries nor loses what the user cannot read: the user's own kept
// session goes, the root's are left for root and counted, and flush
// names root's files. Linux only, and only as root: the test switches
// to uid 65534 (nobody) for the user.
func TestSpoolSharedWithRoot(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("switching users needs root")
	}
	u := newAsUser(t)
	spoolDir := filepath.Join(u.home, ".local", "state", "cursor-otel", "spool")
	t.Cleanup(func() { waitForDeliverers(t, spoolDir) })
	down := otlptest.Down(t)
	wrap := []string{"-p", "--output-format", "stream-json", "fix the failing test"}
	if r := u.run(t, nobody, down, wrap...); r.exit != 0 || !strings.Contains(r.stderr, "kept in") {
		t.Fatalf("user's run: exit %d, stderr %q", r.exit, r.stderr)
	}
	waitForDeliverers(t, spoolDir)
	for range 2 { // the second starts a background delivery, as root
		if r := u.run(t, 0, down, wrap...); r.exit != 0 {
			t.Fatalf("root's run: exit %d, stderr %q", r.exit, r.stderr)
		}
		waitForDeliverers(t, spoolDir)
	}
	rootOwned := filesOwnedBy(t, spoolDir, 0)
	t.Logf("root's files in the user's spool: %v", rootOwned)

	recv := comeBack(t, down)
	// The user's next run delivers the user's kept session in the background.
	w := u.run(t, nobody, recv.Endpoint, wrap...)
	waitForSpans(t, recv, 2*exampleSpans, 15*time.Second)
	waitForDeliverers(t, spoolDir)
	spans := golden.FromOTLP(recv.Spans())
	f := u.run(t, nobody, recv.Endpoint, "flush")
	t.Logf("user's run said %q; %d spans arrived; flush: exit %d, %q %q", w.stderr, len(spans), f.exit, f.stdout, f.stderr)
	noSpanTwice(t, spans)
	if len(spans) != 2*exampleSpans {
		t.Errorf("%d spans arrived; want the user's kept session and the user's run, %d", len(spans), 2*exampleSpans)
	}
	if f.exit != 0 || !strings.Contains(f.stdout, "2 sessions kept by another user (uid 0)") || !strings.Contains(f.stdout, "deliver.lock") {
		t.Errorf("flush: exit %d, stdout %q, stderr %q; want 0, root's 2 sessions counted as left for root, root's files named", f.exit, f.stdout, f.stderr)
	}
	parts := 0
	for _, name := range filesOwnedBy(t, spoolDir, 0) {
		if strings.HasSuffix(name, ".otlp") {
			parts++
		}
	}
	if parts != 2 {
		t.Errorf("%d of root's kept parts left; want both: the user cannot read them, and never deletes them", parts)
	}
}

// filesOwnedBy lists the names of the files in dir owned by uid.
func filesOwnedBy(t *testing.T, dir string, uid uint32) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			continue
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok && st.Uid == uid {
			out = append(out, e.Name())
		}
	}
	return out
}

// A root run (sudo -E) that is the first to keep anything makes the
// user's state directories as the user's: the user's own runs keep and
// deliver their sessions there afterwards.
func TestSpoolMadeByRootIsTheUsers(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("switching users needs root")
	}
	u := newAsUser(t)
	spoolDir := filepath.Join(u.home, ".local", "state", "cursor-otel", "spool")
	t.Cleanup(func() { waitForDeliverers(t, spoolDir) })
	down := otlptest.Down(t)
	wrap := []string{"-p", "--output-format", "stream-json", "fix the failing test"}
	if r := u.run(t, 0, down, wrap...); r.exit != 0 || !strings.Contains(r.stderr, "kept in") {
		t.Fatalf("root's run: exit %d, stderr %q", r.exit, r.stderr)
	}
	waitForDeliverers(t, spoolDir)
	for d := spoolDir; d != u.home; d = filepath.Dir(d) {
		if info, err := os.Stat(d); err != nil || info.Sys().(*syscall.Stat_t).Uid != nobody {
			t.Errorf("%s: %v; want it the user's", d, err)
		}
	}
	r := u.run(t, nobody, down, wrap...)
	waitForDeliverers(t, spoolDir)
	t.Logf("the user's run after root's said %q", r.stderr)
	if r.exit != 0 || !strings.Contains(r.stderr, "kept in") || strings.Contains(r.stderr, "not kept") {
		t.Errorf("user's run: exit %d, stderr %q; want its session kept", r.exit, r.stderr)
	}
}

// hooks runs a conversation's hook events as uid, each a process of its
// own, as Cursor runs them (root: with sudo -E's environment).
func (u asUser) hooks(t *testing.T, uid int, endpoint string, events []string) {
	t.Helper()
	for _, e := range events {
		cmd := exec.Command(u.binary, "hook")
		cmd.Dir = u.dir
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + u.home, "OTEL_EXPORTER_OTLP_ENDPOINT=" + endpoint, "OTEL_METRICS_EXPORTER=none"}
		cmd.Stdin = strings.NewReader(e + "\n")
		cmd.SysProcAttr = &syscall.SysProcAttr{}
		if uid != 0 {
			cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}
		}
		if r := runStarted(t, cmd, func() { proctest.Start(t, cmd, 30*time.Second) }); r.exit != 0 || r.stderr != "" {
			t.Fatalf("hook as %d: exit %d, stderr %q", uid, r.exit, r.stderr)
		}
	}
}

// The hooks' state shared with root: an older version's root run left
// the state directory root's (0700), and a root run (sudo -E) records a
// turn of the user's conversation; the user's hooks go on, and every
// turn arrives, once.
func TestHooksSharedWithRoot(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("switching users needs root")
	}
	u := newAsUser(t)
	base := filepath.Join(u.home, ".local", "state", "cursor-otel")
	state := filepath.Join(base, "hooks")
	for d := u.home; d != state; {
		d = filepath.Join(d, strings.Split(strings.TrimPrefix(state, d+string(filepath.Separator)), string(filepath.Separator))[0])
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if d != state {
			if err := os.Chown(d, nobody, nobody); err != nil {
				t.Fatal(err)
			}
		}
	}
	// What an older version's root run left: root's, 0700.
	if err := os.WriteFile(filepath.Join(state, "state.lock"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { waitForDeliverers(t, filepath.Join(base, "spool")) })
	down := otlptest.Down(t)
	turn := func(n int) []string {
		prompt, pres, posts, stop := parallelTurn("conv-root", n, 2)
		return append(append(append([]string{prompt}, pres...), posts...), stop)
	}
	u.hooks(t, 0, down, turn(1)) // sudo -E: root, the user's HOME
	waitForDeliverers(t, filepath.Join(base, "spool"))
	recv := comeBack(t, down)
	u.hooks(t, nobody, recv.Endpoint, turn(2))
	if r := u.run(t, nobody, recv.Endpoint, "flush"); r.exit != 0 {
		t.Errorf("user's flush: exit %d, stdout %q, stderr %q", r.exit, r.stdout, r.stderr)
	}
	spans := waitForSpans(t, recv, 8, 15*time.Second)
	traces, tools, notSuccess := checkWhole(t, spans)
	if len(spans) != 8 || traces != 2 || tools != 4 || notSuccess != 0 {
		t.Errorf("%d spans, %d turns, %d tools (%d not a success); want both turns, whole, once: 8, 2, 4, 0", len(spans), traces, tools, notSuccess)
	}
	if root := filesOwnedBy(t, state, 0); len(root) != 0 {
		t.Errorf("root's files left in the user's state: %v", root)
	}
}
