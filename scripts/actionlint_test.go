package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// actionlintEnv names the actionlint to run (.ci/run installs a pinned one).
const actionlintEnv = "ACTIONLINT"

// actionlint finds the example workflows sound, and action.yml too: it
// reads an action's metadata only for a workflow that uses the action as
// ./ in a project of its own (a .git and a .github/workflows beside
// action.yml), where it checks the inputs given and the outputs read. It
// runs shellcheck on each run: script when shellcheck is on PATH.
func TestActionlint(t *testing.T) {
	bin := os.Getenv(actionlintEnv)
	if bin == "" {
		t.Skipf("no %s: go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12, then %s=$(go env GOPATH)/bin/actionlint", actionlintEnv, actionlintEnv)
	}
	examples, _ := filepath.Glob("../examples/*.y*ml")
	var workflows []string // GitHub's: those with jobs at the top
	for _, path := range examples {
		if strings.Contains("\n"+readFile(t, path), "\njobs:") {
			workflows = append(workflows, path)
		}
	}
	if len(workflows) < 2 {
		t.Fatalf("workflows among the examples: %v", workflows)
	}
	if out, err := exec.Command(bin, workflows...).CombinedOutput(); err != nil {
		t.Errorf("actionlint %v: %v\n%s", workflows, err, out)
	}

	workflow := readFile(t, "testdata/uses-the-action.yml")
	for _, tt := range []struct {
		name, workflow, says string
	}{
		{"as it is", workflow, ""},
		{"an input the action lacks", strings.Replace(workflow, "          version: latest", "          versio: latest", 1), `input "versio" is not defined in action "cursor-otel"`},
		{"an output the action lacks", strings.Replace(workflow, "outputs.path", "outputs.bin", 1), `property "bin" is not defined`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			project := t.TempDir()
			for _, dir := range []string{".git", ".github/workflows"} {
				if err := os.MkdirAll(filepath.Join(project, dir), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(project, "action.yml"), []byte(readFile(t, "../action.yml")), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(project, ".github/workflows/uses-the-action.yml"), []byte(tt.workflow), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "-no-color", ".github/workflows/uses-the-action.yml")
			cmd.Dir = project
			out, err := cmd.CombinedOutput()
			if tt.says == "" && err != nil {
				t.Errorf("actionlint: %v\n%s", err, out)
			}
			if tt.says != "" && (err == nil || !strings.Contains(string(out), tt.says)) {
				t.Errorf("actionlint: %v\n%s\nwant it to say %q", err, out, tt.says)
			}
		})
	}
}
