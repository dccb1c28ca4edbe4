package collector

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/proctest"
)

// shippedConfigs are the collector configs the project ships.
func shippedConfigs(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "examples/collector/*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	files = slices.DeleteFunc(files, func(f string) bool { return filepath.Base(f) == "builder.yaml" })
	if len(files) != 3 {
		t.Fatalf("configs %q: want local, gateway and sampler", files)
	}
	return files
}

// Every shipped config is one the built collector accepts, with the
// defaults of its ${env:…} settings: nothing set.
func TestConfigsValidate(t *testing.T) {
	for _, file := range shippedConfigs(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			cmd := exec.Command(otelcol, "validate", "--config="+file)
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
			out, err := runBounded(t, cmd, time.Minute)
			if err != nil {
				t.Fatalf("validate: %v\n%s", err, out)
			}
		})
	}
}

// runBounded runs cmd under proctest's bounds and returns its output.
func runBounded(t testing.TB, cmd *exec.Cmd, limit time.Duration) ([]byte, error) {
	t.Helper()
	var out proctest.Output
	cmd.Stdout, cmd.Stderr = &out, &out
	proctest.Start(t, cmd, limit)
	err := cmd.Wait()
	return out.Bytes(), err
}
