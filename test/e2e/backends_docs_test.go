package e2e

import (
	"bufio"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// A settingsBlock is one backend's settings on docs/backends.md: the
// shell lines a user pastes, marked <!-- backend: NAME PROTOCOL -->.
type settingsBlock struct {
	backend, protocol, script string
}

var backendMark = regexp.MustCompile(`^<!-- backend: (\S+) (grpc|http) -->$`)

func settingsBlocks(t *testing.T) []settingsBlock {
	t.Helper()
	f, err := os.Open("docs/backends.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []settingsBlock
	var cur *settingsBlock
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch m := backendMark.FindStringSubmatch(line); {
		case m != nil:
			cur = &settingsBlock{backend: m[1], protocol: m[2]}
		case cur != nil && line == "```sh":
			in = true
		case cur != nil && in && line == "```":
			blocks = append(blocks, *cur)
			cur, in = nil, false
		case cur != nil && in:
			cur.script += line + "\n"
		}
	}
	return blocks
}

var shellVariable = regexp.MustCompile(`\$\{?([A-Z][A-Z0-9_]*)`)

// blockSettings runs a block in bash, with a made-up value for each variable
// it reads, and returns the OTEL_ settings it leaves.
func blockSettings(t *testing.T, script string) map[string]string {
	t.Helper()
	env := []string{"PATH=" + os.Getenv("PATH")}
	for _, m := range shellVariable.FindAllStringSubmatch(script, -1) {
		env = append(env, m[1]+"=made-up-"+strings.ToLower(m[1]))
	}
	cmd := exec.Command("bash", "-ec", script+"env\n")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the block does not run in bash: %v", err)
	}
	settings := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && strings.HasPrefix(k, "OTEL_") {
			settings[k] = v
		}
	}
	return settings
}

// TestBackendSettings runs each backend's settings block as written, sends
// a replay with them to a receiver on this machine (the block's address
// swapped for the receiver's, its path kept), and checks the spans arrive
// by the block's protocol, at its path, with its headers.
func TestBackendSettings(t *testing.T) {
	blocks := settingsBlocks(t)
	if len(blocks) < 8 {
		t.Fatalf("%d settings blocks on docs/backends.md, want one a backend", len(blocks))
	}
	for _, b := range blocks {
		t.Run(b.backend, func(t *testing.T) {
			settings := blockSettings(t, b.script)
			var recv *otlptest.Receiver
			if b.protocol == "grpc" {
				recv = otlptest.StartGRPC(t)
			} else {
				recv = otlptest.StartHTTP(t)
			}
			wantPath := "/v1/traces"
			env := []string{"OTEL_METRICS_EXPORTER=none"}
			for k, v := range settings {
				if strings.HasSuffix(k, "_ENDPOINT") {
					u, err := url.Parse(v)
					if err != nil {
						t.Fatalf("%s=%s: %v", k, v, err)
					}
					if b.protocol == "http" {
						wantPath = strings.TrimSuffix(u.Path, "/")
						if k == "OTEL_EXPORTER_OTLP_ENDPOINT" {
							wantPath += "/v1/traces"
						}
					}
					v = recv.Endpoint + u.Path
				}
				env = append(env, k+"="+v)
			}
			r := runBinary(t, env, nil, "replay", "--quiet", "examples/failed-run.ndjson")
			if r.exit != 0 || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q", r.exit, r.stderr)
			}
			if n := waitForSpans(t, recv, 5, 5*time.Second); len(n) != 5 {
				t.Fatalf("%d spans arrived, want 5", len(n))
			}
			got := recv.Headers()[0]
			if b.protocol == "http" && got[":path"] != wantPath {
				t.Errorf("spans sent to %q, want %q", got[":path"], wantPath)
			}
			for _, name := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"} {
				for _, pair := range strings.Split(settings[name], ",") {
					k, v, ok := strings.Cut(pair, "=")
					if !ok {
						continue
					}
					want, _ := url.PathUnescape(v)
					if h := got[strings.ToLower(k)]; h != want {
						t.Errorf("header %s: %q arrived, want %q", k, h, want)
					}
				}
			}
		})
	}
}
