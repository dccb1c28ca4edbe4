package scripts

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// GoReleaser's snapshot (CURSOR_OTEL_DIST) holds an archive for every
// platform .goreleaser.yaml names, each holding that platform's binary
// and listed in checksums.txt with its sha256, nothing else, and the
// Homebrew cask, which installs the macOS and Linux archives by their
// release URLs and checksums.
func TestReleaseArchives(t *testing.T) {
	dir := os.Getenv(distEnv)
	if dir == "" {
		t.Skipf("no %s: run goreleaser release --snapshot --clean, then %s=$PWD/dist go test ./scripts", distEnv, distEnv)
	}
	rel := distRelease(t, dir)
	var config struct {
		Builds []struct {
			Goos   []string `yaml:"goos"`
			Goarch []string `yaml:"goarch"`
		} `yaml:"builds"`
	}
	b, err := os.ReadFile("../.goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &config); err != nil || len(config.Builds) != 1 {
		t.Fatalf(".goreleaser.yaml: %v, %d builds", err, len(config.Builds))
	}
	goos := config.Builds[0].Goos
	for _, want := range []string{"darwin", "linux", "windows"} {
		if !slices.Contains(goos, want) {
			t.Errorf(".goreleaser.yaml builds for %v: no %s", goos, want)
		}
	}

	sums := map[string]string{}
	for _, line := range lines(t, filepath.Join(dir, "checksums.txt")) {
		sum, name, _ := strings.Cut(line, "  ")
		sums[name] = sum
	}
	var want []string
	for _, system := range goos {
		for _, arch := range config.Builds[0].Goarch {
			name := rel.archive(system, arch)
			want = append(want, name)
			t.Run(name, func(t *testing.T) {
				path := filepath.Join(dir, name)
				sum, err := sha256File(path)
				if err != nil {
					t.Fatal(err)
				}
				if sums[name] != sum {
					t.Errorf("checksums.txt says %q, the file's sha256 is %s", sums[name], sum)
				}
				files := unpack(t, path)
				exe := "cursor-otel"
				if system == "windows" {
					exe += ".exe"
				}
				if names := slices.Sorted(maps.Keys(files)); !slices.Equal(names, []string{"README.md", exe}) {
					t.Errorf("holds %v; want %s and README.md", names, exe)
				}
				if got := platformOf(files[exe]); got != system+"/"+arch {
					t.Errorf("%s is a %s binary", exe, got)
				}
			})
		}
	}
	var listed []string
	for name := range sums {
		listed = append(listed, name)
	}
	slices.Sort(listed)
	slices.Sort(want)
	if !slices.Equal(listed, want) {
		t.Errorf("checksums.txt lists %v; want %v", listed, want)
	}

	cask := readFile(t, filepath.Join(dir, "homebrew", "Casks", "cursor-otel.rb"))
	for _, line := range []string{
		`version "` + rel.version + `"`,
		`binary "cursor-otel"`,
		`"/usr/bin/xattr", args: ["-dr", "com.apple.quarantine", "#{staged_path}/cursor-otel"]`,
	} {
		if !strings.Contains(cask, line) {
			t.Errorf("the cask lacks %s:\n%s", line, cask)
		}
	}
	for _, system := range []string{"darwin", "linux"} {
		for _, arch := range config.Builds[0].Goarch {
			name := rel.archive(system, arch)
			url := "https://github.com/cursor-otel/cursor-otel/releases/download/" + rel.gitTag + "/" + strings.ReplaceAll(name, rel.version, "#{version}")
			if !strings.Contains(cask, `url "`+url+`"`) || !strings.Contains(cask, `sha256 "`+sums[name]+`"`) {
				t.Errorf("the cask does not install %s (%s, sha256 %s):\n%s", name, url, sums[name], cask)
			}
		}
	}
}

// unpack returns the files of a .tar.gz or .zip, by name.
func unpack(t *testing.T, path string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	if strings.HasSuffix(path, ".zip") {
		z, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		defer z.Close()
		for _, f := range z.File {
			r, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			files[f.Name], err = io.ReadAll(r)
			r.Close()
			if err != nil {
				t.Fatal(err)
			}
		}
		return files
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		if files[h.Name], err = io.ReadAll(tr); err != nil {
			t.Fatal(err)
		}
		if h.Name == "cursor-otel" && h.Mode&0o111 == 0 {
			t.Errorf("cursor-otel in %s is not executable (mode %o)", path, h.Mode)
		}
	}
}

// platformOf says which GOOS/GOARCH an executable is for.
func platformOf(exe []byte) string {
	r := bytes.NewReader(exe)
	if f, err := elf.NewFile(r); err == nil {
		return "linux/" + map[elf.Machine]string{elf.EM_X86_64: "amd64", elf.EM_AARCH64: "arm64"}[f.Machine]
	}
	if f, err := macho.NewFile(r); err == nil {
		return "darwin/" + map[macho.Cpu]string{macho.CpuAmd64: "amd64", macho.CpuArm64: "arm64"}[f.Cpu]
	}
	if f, err := pe.NewFile(r); err == nil {
		return "windows/" + map[uint16]string{pe.IMAGE_FILE_MACHINE_AMD64: "amd64", pe.IMAGE_FILE_MACHINE_ARM64: "arm64"}[f.Machine]
	}
	return fmt.Sprintf("unknown (%d bytes)", len(exe))
}
