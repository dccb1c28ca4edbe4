package scripts

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// The action installs the release on a runner without Go, first on PATH
// as cursor-agent; a later step's cursor-agent run is cursor-otel, which
// runs the real agent behind it, traces the run to the endpoint the
// action was given, with its headers, and writes the report on that
// step's summary page.
func TestActionInstallsAndLaterStepsAreTraced(t *testing.T) {
	rel := testRelease(t)
	srv := serveRelease(t, rel)
	recv := otlptest.StartGRPC(t)
	r := newRunner(t)

	install := r.action(t, srv.URL, "ACTION_REF="+rel.tag(), "INPUT_OTLP_ENDPOINT="+recv.Endpoint,
		"INPUT_OTLP_HEADERS=x-team-token=s3cret\n", "INPUT_MAX_BUDGET_USD=2.00")
	t.Logf("install: %v", install.took)
	if install.exit != 0 || install.stderr != "" {
		t.Fatalf("install: exit %d, stderr %q", install.exit, install.stderr)
	}
	if !strings.Contains(install.stdout, "::add-mask::x-team-token=s3cret\n") {
		t.Errorf("install stdout %q: the headers are not masked", install.stdout)
	}
	if !strings.Contains(install.stdout, "cursor-otel "+rel.tag()) || !strings.Contains(install.stdout, "sha256") {
		t.Errorf("install stdout %q: want the version installed and its checksum said", install.stdout)
	}
	bin := filepath.Join(r.temp, "cursor-otel", "bin")
	if got := readFile(t, r.files["GITHUB_PATH"]); got != bin+"\n" {
		t.Errorf("GITHUB_PATH %q, want %q", got, bin+"\n")
	}
	wantEnv := "OTEL_EXPORTER_OTLP_ENDPOINT=" + recv.Endpoint + "\nOTEL_EXPORTER_OTLP_HEADERS=x-team-token=s3cret\n" +
		"CURSOR_OTEL_MAX_BUDGET_USD=2.00\nCURSOR_OTEL_SUMMARY=$GITHUB_STEP_SUMMARY\n"
	if got := readFile(t, r.files["GITHUB_ENV"]); got != wantEnv {
		t.Errorf("GITHUB_ENV\n%s\nwant\n%s", got, wantEnv)
	}
	if got := readFile(t, r.files["GITHUB_OUTPUT"]); got != "version="+rel.tag()+"\npath="+bin+"\n" {
		t.Errorf("GITHUB_OUTPUT %q", got)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(r.temp, "cursor-otel-download.*")); len(leftovers) != 0 {
		t.Errorf("downloads left behind: %v", leftovers)
	}

	version := r.later(t, nil, "cursor-otel", "version")
	if !strings.HasPrefix(version.stdout, "cursor-otel "+rel.tag()+" ") || version.exit != 0 {
		t.Errorf("cursor-otel version: %q, exit %d; want %s", version.stdout, version.exit, rel.tag())
	}

	stream, err := os.ReadFile("../examples/parallel-tools.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"cursor-agent", "agent"} {
		t.Run(name, func(t *testing.T) {
			before := recv.SpanCount()
			run := r.later(t, []string{"FAKEAGENT_STREAM=../examples/parallel-tools.ndjson", "FAKEAGENT_SPEED=1000000"},
				name, "-p", "--output-format", "stream-json", "fix the tests")
			if run.stdout != string(stream) || run.exit != 0 || run.stderr != "" {
				t.Fatalf("stdout the agent's: %v, exit %d, stderr %q; want the real agent's run, untouched", run.stdout == string(stream), run.exit, run.stderr)
			}
			if !strings.HasPrefix(run.summary, "### cursor-agent succeeded in ") {
				t.Errorf("the step's summary:\n%s\nwant the run's report", run.summary)
			}
			if recv.SpanCount() <= before {
				t.Errorf("no spans reached the action's endpoint")
			}
		})
	}
	if !sentHeader(recv, "x-team-token", "s3cret") {
		t.Errorf("the collector saw headers %v; want x-team-token from the action", recv.Headers())
	}
	if install.summary != "" {
		t.Errorf("the action's own step summary: %q", install.summary)
	}
}

func sentHeader(recv *otlptest.Receiver, key, value string) bool {
	for _, h := range recv.Headers() {
		if h[key] == value {
			return true
		}
	}
	return false
}

// Which release: the version input; else the action's ref when it names
// a release; else (a major tag, a branch, a commit, no ref at all) the
// latest, found as GitHub's releases/latest redirect says. A composite
// action may see its ref empty: the directory the runner keeps it in
// names it.
func TestActionChoosesTheRelease(t *testing.T) {
	rel := testRelease(t)
	srv := serveRelease(t, rel)
	for _, tt := range []struct {
		name string
		env  []string
	}{
		{"the version input", []string{"INPUT_VERSION=" + rel.version, "ACTION_REF=v0.0.1"}},
		{"the action's release", []string{"ACTION_REF=" + rel.tag()}},
		{"a major tag: the latest", []string{"ACTION_REF=v1"}},
		{"a branch: the latest", []string{"ACTION_REF=main"}},
		{"latest asked for", []string{"INPUT_VERSION=latest", "ACTION_REF=v0.0.1"}},
		{"no ref: the action's directory", []string{"ACTION_REF=", "GITHUB_ACTION_PATH=/home/runner/work/_actions/acme/cursor-otel/" + rel.tag()}},
		{"no ref, no directory: the latest", []string{"ACTION_REF="}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRunner(t)
			install := r.action(t, srv.URL, tt.env...)
			if install.exit != 0 || install.stderr != "" {
				t.Fatalf("exit %d, stderr %q", install.exit, install.stderr)
			}
			if got := readFile(t, r.files["GITHUB_OUTPUT"]); !strings.HasPrefix(got, "version="+rel.tag()+"\n") {
				t.Errorf("GITHUB_OUTPUT %q; want %s installed", got, rel.tag())
			}
		})
	}
}

// install-as-agent false installs cursor-otel alone; summary false
// exports no summary; inputs people write in other spellings are read.
func TestActionSwitches(t *testing.T) {
	rel := testRelease(t)
	srv := serveRelease(t, rel)
	r := newRunner(t)
	install := r.action(t, srv.URL, "ACTION_REF="+rel.tag(), "INPUT_INSTALL_AS_AGENT=False", "INPUT_SUMMARY=no")
	if install.exit != 0 || install.stderr != "" {
		t.Fatalf("exit %d, stderr %q", install.exit, install.stderr)
	}
	entries, err := os.ReadDir(filepath.Join(r.temp, "cursor-otel", "bin"))
	if err != nil || len(entries) != 1 || entries[0].Name() != "cursor-otel" {
		t.Errorf("installed %v (%v); want cursor-otel alone", entries, err)
	}
	if got := readFile(t, r.files["GITHUB_ENV"]); got != "" {
		t.Errorf("GITHUB_ENV %q; want nothing exported", got)
	}
	run := r.later(t, []string{"FAKEAGENT_STREAM=../examples/parallel-tools.ndjson", "FAKEAGENT_SPEED=1000000", "OTEL_TRACES_EXPORTER=none"},
		"cursor-agent", "-p", "--output-format", "stream-json", "hi")
	if run.exit != 0 || run.summary != "" {
		t.Errorf("cursor-agent: exit %d, summary %q; want the real agent alone", run.exit, run.summary)
	}
}

// On a Windows runner (Git Bash) the archive is a .zip holding
// cursor-otel.exe, installed as cursor-agent.exe and agent.exe by copy.
// Run here with this machine's build in the .zip under Windows names.
func TestActionOnWindowsNames(t *testing.T) {
	rel := madeRelease(t)
	srv := serveRelease(t, rel)
	r := newRunner(t)
	r.goos = "windows"
	install := r.action(t, srv.URL, "ACTION_REF="+rel.tag())
	if install.exit != 0 || install.stderr != "" {
		t.Fatalf("exit %d, stderr %q, stdout %q", install.exit, install.stderr, install.stdout)
	}
	bin := filepath.Join(r.temp, "cursor-otel", "bin")
	for _, name := range []string{"cursor-otel.exe", "cursor-agent.exe", "agent.exe"} {
		info, err := os.Lstat(filepath.Join(bin, name))
		if err != nil || !info.Mode().IsRegular() {
			t.Errorf("%s: %v; want a copy of cursor-otel.exe", name, err)
		}
	}
	if !strings.Contains(install.stdout, rel.archive("windows", r.goarch)) {
		t.Errorf("stdout %q; want the .zip named", install.stdout)
	}
}

// Anything wrong stops the action with one line that says what, and
// nothing is installed or exported: a tampered archive above all.
func TestActionRefuses(t *testing.T) {
	rel := testRelease(t)
	archive := rel.archive(runtime.GOOS, runtime.GOARCH)
	for _, tt := range []struct {
		name   string
		env    []string
		tamper func(name string, data []byte) []byte
		says   string
	}{
		{"a tampered archive", nil, func(name string, data []byte) []byte {
			if name == archive {
				data = append([]byte(nil), data...)
				data[len(data)/2] ^= 1
			}
			return data
		}, archive + " does not match " + rel.tag() + "'s checksums.txt (sha256 "},
		{"an archive the checksums do not list", nil, func(name string, data []byte) []byte {
			if name == "checksums.txt" {
				return []byte(strings.ReplaceAll(string(data), archive, "something-else.tar.gz"))
			}
			return data
		}, archive + " is not in " + rel.tag() + "'s checksums.txt"},
		{"an archive without cursor-otel", nil, swapArchive(t, rel, archive, "README", []byte("# cursor-otel\n")), archive + " has no cursor-otel"},
		{"a cursor-otel that does not run here", nil, swapArchive(t, rel, archive, "cursor-otel", []byte("\x7fELF\x02\x01\x01 not a program")),
			"the cursor-otel in " + archive + " does not run here: "},
		{"a release that is not there", []string{"INPUT_VERSION=v9.9.9"}, nil, "could not download " + "URL/download/v9.9.9/checksums.txt (HTTP 404)"},
		{"a version that is no release", []string{"INPUT_VERSION=main"}, nil, `the version "main" is not a release: write v1.2.3 or latest`},
		{"a runner of no release", []string{"RUNNER_OS=FreeBSD"}, nil, `no cursor-otel release for the runner's OS "FreeBSD"`},
		{"an architecture of no release", []string{"RUNNER_ARCH=ARM"}, nil, `no cursor-otel release for the runner's architecture "ARM"`},
		{"a switch that is neither", []string{"INPUT_SUMMARY=maybe"}, nil, `the summary input is "maybe": write true or false`},
		{"an endpoint of two lines", []string{"INPUT_OTLP_ENDPOINT=http://a:4317\nOTEL_SDK_DISABLED=true"}, nil, "the otlp-endpoint input is more than one line"},
		{"no release server", []string{"CURSOR_OTEL_RELEASES_URL=http://127.0.0.1:1/releases"}, nil, "could not download http://127.0.0.1:1/releases/download/"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := serveRelease(t, rel)
			srv.tamper = tt.tamper
			r := newRunner(t)
			install := r.action(t, srv.URL, append([]string{"ACTION_REF=" + rel.tag()}, tt.env...)...)
			says := strings.ReplaceAll(tt.says, "URL", srv.URL)
			if install.exit != 1 || strings.Count(install.stderr, "\n") != 1 ||
				!strings.HasPrefix(install.stderr, "::error title=cursor-otel not installed::") || !strings.Contains(install.stderr, says) {
				t.Errorf("exit %d, stderr %q; want 1 and one line saying %q", install.exit, install.stderr, says)
			}
			for name, file := range r.files {
				if got := readFile(t, file); got != "" {
					t.Errorf("%s: %q; want nothing", name, got)
				}
			}
			if left, _ := os.ReadDir(r.temp); len(left) != 0 {
				t.Errorf("RUNNER_TEMP holds %v; want nothing installed", left)
			}
		})
	}
}

// swapArchive serves, in the place of the release's archive, one holding
// only name with data in it, listed in checksums.txt with its own sum: a
// release made wrong, not tampered with.
func swapArchive(t *testing.T, rel release, archive, name string, data []byte) func(string, []byte) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), archive)
	if err := writeArchive(path, name, data); err != nil {
		t.Fatal(err)
	}
	swapped, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := sha256File(path)
	if err != nil {
		t.Fatal(err)
	}
	return func(served string, original []byte) []byte {
		switch served {
		case archive:
			return swapped
		case "checksums.txt":
			var out []string
			for _, line := range strings.Split(strings.TrimSuffix(string(original), "\n"), "\n") {
				if strings.HasSuffix(line, "  "+archive) {
					line = sum + "  " + archive
				}
				out = append(out, line)
			}
			return []byte(strings.Join(out, "\n") + "\n")
		}
		return original
	}
}
