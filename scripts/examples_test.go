package scripts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The examples that use the action give only inputs it has, and install
// cursor-agent before it: a directory added to $GITHUB_PATH later goes
// first, and cursor-otel must come before the real agent.
func TestExamplesUseTheAction(t *testing.T) {
	var a actionMetadata
	readYAML(t, "../action.yml", &a)
	examples, _ := filepath.Glob("../examples/github-actions*.yml")
	if len(examples) < 2 {
		t.Fatalf("examples: %v", examples)
	}
	for _, path := range examples {
		var wf struct {
			Jobs map[string]struct {
				Steps []struct {
					Uses string            `yaml:"uses"`
					With map[string]string `yaml:"with"`
					Run  string            `yaml:"run"`
				} `yaml:"steps"`
			} `yaml:"jobs"`
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(b, &wf); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		uses := 0
		for job, j := range wf.Jobs {
			agentAt, actionAt := -1, -1
			for i, s := range j.Steps {
				if strings.Contains(s.Run, "cursor.com/install") {
					agentAt = i
				}
				if !strings.HasPrefix(s.Uses, "cursor-otel/cursor-otel@") {
					continue
				}
				uses++
				actionAt = i
				for k := range s.With {
					if _, ok := a.Inputs[k]; !ok {
						t.Errorf("%s: job %s gives the action an input it does not have: %s", path, job, k)
					}
				}
				if s.With["otlp-endpoint"] != "${{ secrets.OTEL_EXPORTER_OTLP_ENDPOINT }}" {
					t.Errorf("%s: the endpoint %q does not come from secrets", path, s.With["otlp-endpoint"])
				}
			}
			if actionAt >= 0 && agentAt > actionAt {
				t.Errorf("%s: job %s installs cursor-agent after the action: the real agent would come first on PATH", path, job)
			}
		}
		if uses == 0 {
			t.Errorf("%s does not use the action", path)
		}
	}
}
