// Package upstream reads the data files the code generators build from
// (genai-prices' price table, gitleaks' rules): a local copy when one is
// named, else the file at a pinned commit on GitHub.
package upstream

import (
	"fmt"
	"io"
	"net/http"
	"os"
)

// Read returns the file at path when path is set, else the body of
// https://raw.githubusercontent.com/<repo>/<rev>/<file>.
func Read(path, repo, rev, file string) ([]byte, error) {
	if path != "" {
		return os.ReadFile(path)
	}
	url := "https://raw.githubusercontent.com/" + repo + "/" + rev + "/" + file
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", url, resp.Status)
	}
	return io.ReadAll(resp.Body)
}
