package scripts

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// distEnv names a directory GoReleaser made (goreleaser release
// --snapshot): the tests then install its archives. Without it they make
// a release of their own, as GoReleaser names and checksums it, of this
// machine's build.
const distEnv = "CURSOR_OTEL_DIST"

// release is a directory of release files, as a GitHub release holds them.
type release struct {
	dir     string
	version string // 1.2.3, as the archives' names have it
	gitTag  string // the tag GoReleaser released from (a snapshot's is the last tag)
}

func (r release) tag() string { return "v" + r.version }

// archive is the archive's name for a platform, as .goreleaser.yaml
// names it.
func (r release) archive(goos, goarch string) string {
	ext := "tar.gz"
	if goos == "windows" {
		ext = "zip"
	}
	return fmt.Sprintf("cursor-otel_%s_%s_%s.%s", r.version, goos, goarch, ext)
}

var (
	ownOnce    sync.Once
	ownRelease release
	ownErr     error
)

// testRelease is GoReleaser's dist when distEnv names one, else a
// release made here.
func testRelease(t *testing.T) release {
	t.Helper()
	if dir := os.Getenv(distEnv); dir != "" {
		return distRelease(t, dir)
	}
	return madeRelease(t)
}

// madeRelease is a release made once for all the tests: this machine's
// build in a .tar.gz for this platform and, under Windows names, in a
// .zip as cursor-otel.exe (so that the script's Windows steps run here
// too), with checksums.txt.
func madeRelease(t *testing.T) release {
	t.Helper()
	ownOnce.Do(func() { ownRelease, ownErr = makeRelease(tempRoot) })
	if ownErr != nil {
		t.Fatal(ownErr)
	}
	return ownRelease
}

func makeRelease(root string) (release, error) {
	r := release{dir: filepath.Join(root, "release"), version: "0.9.1", gitTag: "v0.9.1"}
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return r, err
	}
	bin := filepath.Join(root, "cursor-otel")
	build := exec.Command("go", "build", "-trimpath", "-o", bin,
		"-ldflags", "-X github.com/cursor-otel/cursor-otel/internal/version.release="+r.version, "..")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return r, fmt.Errorf("build cursor-otel: %v\n%s", err, out)
	}
	exe, err := os.ReadFile(bin)
	if err != nil {
		return r, err
	}
	var sums strings.Builder
	for _, a := range []struct{ name, inside string }{
		{r.archive(runtime.GOOS, runtime.GOARCH), "cursor-otel"},
		{r.archive("windows", runtime.GOARCH), "cursor-otel.exe"},
	} {
		path := filepath.Join(r.dir, a.name)
		if err := writeArchive(path, a.inside, exe); err != nil {
			return r, err
		}
		sum, err := sha256File(path)
		if err != nil {
			return r, err
		}
		fmt.Fprintf(&sums, "%s  %s\n", sum, a.name)
	}
	return r, os.WriteFile(filepath.Join(r.dir, "checksums.txt"), []byte(sums.String()), 0o644)
}

// writeArchive writes a .tar.gz or .zip holding the executable as name,
// and README.md beside it, as a release archive has them.
func writeArchive(path, name string, exe []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	files := []struct {
		name string
		mode int64
		data []byte
	}{{name, 0o755, exe}, {"README.md", 0o644, []byte("# cursor-otel\n")}}
	if strings.HasSuffix(path, ".zip") {
		z := zip.NewWriter(f)
		for _, file := range files {
			h := &zip.FileHeader{Name: file.name, Method: zip.Deflate}
			h.SetMode(os.FileMode(file.mode))
			w, err := z.CreateHeader(h)
			if err != nil {
				return err
			}
			if _, err := w.Write(file.data); err != nil {
				return err
			}
		}
		return z.Close()
	}
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	for _, file := range files {
		if err := tw.WriteHeader(&tar.Header{Name: file.name, Mode: file.mode, Size: int64(len(file.data)), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		if _, err := tw.Write(file.data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// distRelease is GoReleaser's dist directory, its version read from the
// metadata.json GoReleaser writes there.
func distRelease(t *testing.T, dir string) release {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "metadata.json"))
	if err != nil {
		t.Fatalf("%s=%s: %v (run goreleaser release --snapshot --clean first)", distEnv, dir, err)
	}
	var meta struct {
		Version string `json:"version"`
		Tag     string `json:"tag"`
	}
	if err := json.Unmarshal(b, &meta); err != nil || meta.Version == "" || meta.Tag == "" {
		t.Fatalf("%s/metadata.json: no version and tag in it (%v)", dir, err)
	}
	return release{dir: dir, version: meta.Version, gitTag: meta.Tag}
}

func sha256File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// releaseServer serves a release as GitHub does, on 127.0.0.1: files
// under /releases/download/TAG/, and /releases/latest redirecting to
// /releases/tag/TAG.
type releaseServer struct {
	URL string // what CURSOR_OTEL_RELEASES_URL is set to
	// tamper, when set, changes what is served of a file.
	tamper func(name string, data []byte) []byte
}

func serveRelease(t *testing.T, r release) *releaseServer {
	t.Helper()
	s := &releaseServer{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /releases/latest", func(w http.ResponseWriter, req *http.Request) {
		http.Redirect(w, req, "/releases/tag/"+r.tag(), http.StatusFound)
	})
	mux.HandleFunc("GET /releases/tag/{tag}", func(w http.ResponseWriter, req *http.Request) {
		if req.PathValue("tag") != r.tag() {
			http.NotFound(w, req)
			return
		}
		fmt.Fprintf(w, "<html>release %s</html>\n", r.tag())
	})
	mux.HandleFunc("GET /releases/download/{tag}/{name}", func(w http.ResponseWriter, req *http.Request) {
		name := req.PathValue("name")
		data, err := os.ReadFile(filepath.Join(r.dir, filepath.Base(name)))
		if req.PathValue("tag") != r.tag() || err != nil {
			http.NotFound(w, req)
			return
		}
		if s.tamper != nil {
			data = s.tamper(name, data)
		}
		w.Write(data)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s.URL = srv.URL + "/releases"
	return s
}
