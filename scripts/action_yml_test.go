package scripts

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// actionMetadata is what GitHub reads of action.yml (actionlint checks
// workflows, not an action's own metadata).
type actionMetadata struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Author      string `yaml:"author"`
	Branding    struct {
		Icon  string `yaml:"icon"`
		Color string `yaml:"color"`
	} `yaml:"branding"`
	Inputs map[string]struct {
		Description string  `yaml:"description"`
		Required    bool    `yaml:"required"`
		Default     *string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []struct {
			ID    string            `yaml:"id"`
			Shell string            `yaml:"shell"`
			Run   string            `yaml:"run"`
			Uses  string            `yaml:"uses"`
			Env   map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// action.yml is a composite action GitHub can run: described inputs, each
// reaching the script as INPUT_NAME, which the script reads; outputs the
// script writes; one bash step running the script in the repository.
func TestActionMetadata(t *testing.T) {
	var a actionMetadata
	readYAML(t, "../action.yml", &a)
	script := readFile(t, "install-action.sh")
	if a.Name == "" || a.Description == "" || a.Runs.Using != "composite" || len(a.Runs.Steps) != 1 {
		t.Fatalf("name %q, description %q, runs.using %q, %d steps; want a described composite action of one step", a.Name, a.Description, a.Runs.Using, len(a.Runs.Steps))
	}
	s := a.Runs.Steps[0]
	if s.Shell != "bash" || s.Run != `bash "$GITHUB_ACTION_PATH/scripts/install-action.sh"` || s.ID != "install" {
		t.Errorf("step: id %q, shell %q, run %q; want bash running scripts/install-action.sh", s.ID, s.Shell, s.Run)
	}
	for _, name := range []string{"version", "otlp-endpoint", "otlp-headers", "summary", "max-budget-usd", "install-as-agent"} {
		if _, ok := a.Inputs[name]; !ok {
			t.Errorf("no input %s", name)
		}
	}
	for name, in := range a.Inputs {
		env := "INPUT_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		if in.Description == "" || in.Default == nil || in.Required {
			t.Errorf("input %s: want a description, a default, and not required", name)
		}
		if got := s.Env[env]; got != fmt.Sprintf("${{ inputs.%s }}", name) {
			t.Errorf("input %s reaches the script as %s=%q", name, env, got)
		}
		if !strings.Contains(script, "${"+env+":-") {
			t.Errorf("the script never reads %s", env)
		}
	}
	for _, k := range []string{"ACTION_REF", "ACTION_REPOSITORY"} {
		if s.Env[k] != fmt.Sprintf("${{ github.%s }}", strings.ToLower(k)) {
			t.Errorf("%s=%q", k, s.Env[k])
		}
	}
	for name, out := range a.Outputs {
		if out.Description == "" || out.Value != fmt.Sprintf("${{ steps.install.outputs.%s }}", name) || !strings.Contains(script, `echo "`+name+`=`) {
			t.Errorf("output %s: %+v; want it described, and written by the script", name, out)
		}
	}
}
