package agent

import (
	"io/fs"
	"slices"
	"strings"
)

// searcher finds a program by name in a PATH the way one platform's shell
// does. Its rules are plain code, with the file system and environment
// handed in, so that Windows' rules are tested wherever the tests run.
type searcher struct {
	windows bool // Windows' rules: ';' lists, PATHEXT, \ and drive letters
	// exts are the extensions a name is tried with, in order, on Windows:
	// PATHEXT's, then .ps1 (a PowerShell shim, which PowerShell finds on
	// PATH though PATHEXT does not list it).
	exts []string
	stat func(string) (fs.FileInfo, error)
	// runnable says a file found is a program to run (unix: an executable
	// bit the user may use; Windows: any file).
	runnable func(path string, info fs.FileInfo) bool
}

// defaultPathExt is PATHEXT when the environment has none, as cmd.exe and
// Go's exec.LookPath take it.
const defaultPathExt = ".COM;.EXE;.BAT;.CMD"

// windowsSearcher searches with Windows' rules: PATHEXT from getenv.
func windowsSearcher(getenv func(string) string, stat func(string) (fs.FileInfo, error)) searcher {
	s := searcher{windows: true, stat: stat, runnable: func(_ string, info fs.FileInfo) bool { return !info.IsDir() }}
	pathExt := getenv("PATHEXT")
	if pathExt == "" {
		pathExt = defaultPathExt
	}
	for e := range strings.SplitSeq(strings.ToLower(pathExt), ";") {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		if !strings.HasPrefix(e, ".") {
			e = "." + e
		}
		if !slices.Contains(s.exts, e) {
			s.exts = append(s.exts, e)
		}
	}
	if !slices.Contains(s.exts, ".ps1") {
		s.exts = append(s.exts, ".ps1")
	}
	return s
}

// hasDir says name is a path (it names a directory), not a name to look
// up on PATH.
func (s searcher) hasDir(name string) bool {
	if s.windows {
		return strings.ContainsAny(name, `:\/`)
	}
	return strings.ContainsRune(name, '/')
}

// dirs are PATH's directories, in order. On unix an empty entry is the
// current directory; Windows skips it (as PowerShell and Go do), and a
// directory may be quoted ("C:\Program Files\x";C:\y).
func (s searcher) dirs(path string) []string {
	if !s.windows {
		out := strings.Split(path, ":")
		for i, d := range out {
			if d == "" {
				out[i] = "."
			}
		}
		return out
	}
	var out []string
	var cur strings.Builder
	quoted := false
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
		}
		cur.Reset()
	}
	for _, c := range path {
		switch {
		case c == '"':
			quoted = !quoted
		case c == ';' && !quoted:
			flush()
		default:
			cur.WriteRune(c)
		}
	}
	flush()
	return out
}

// join is dir/name, with the platform's separator.
func (s searcher) join(dir, name string) string {
	sep := "/"
	if s.windows {
		sep = `\`
		if strings.HasSuffix(dir, `\`) || strings.HasSuffix(dir, "/") || (len(dir) == 2 && dir[1] == ':') {
			sep = ""
		}
	} else if strings.HasSuffix(dir, "/") {
		sep = ""
	}
	return dir + sep + name
}

// candidates are the files a name (or a path) may be, in the order tried:
// on Windows the name as given when it has an extension, then with each
// extension; elsewhere the name alone.
func (s searcher) candidates(name string) []string {
	if !s.windows {
		return []string{name}
	}
	var out []string
	if windowsExt(name) != "" {
		out = append(out, name)
	}
	for _, e := range s.exts {
		out = append(out, name+e)
	}
	return out
}

// resolve finds the program a path names (on Windows, perhaps by adding
// an extension); skip rejects a file found (cursor-otel itself), and the
// search goes on with the next candidate.
func (s searcher) resolve(path string, skip func(string, fs.FileInfo) bool) (string, fs.FileInfo, bool) {
	for _, c := range s.candidates(path) {
		info, err := s.stat(c)
		if err != nil || !s.runnable(c, info) {
			continue
		}
		if skip != nil && skip(c, info) {
			continue
		}
		return c, info, true
	}
	return "", nil, false
}

// look finds name in the directories of path: the first program that skip
// does not reject.
func (s searcher) look(name, path string, skip func(string, fs.FileInfo) bool) (string, bool) {
	for _, dir := range s.dirs(path) {
		if found, _, ok := s.resolve(s.join(dir, name), skip); ok {
			return found, true
		}
	}
	return "", false
}

// windowsExt is the extension of a Windows path's file name, as written
// (".CMD"), or "" when it has none: a dot in a directory's name is not one.
func windowsExt(path string) string {
	if dot := strings.LastIndexByte(path, '.'); dot > strings.LastIndexAny(path, `:\/`) {
		return path[dot:]
	}
	return ""
}

// ProgramName is the name a program was run by (its argv[0]) as Names
// spell it: its file name, and on Windows in lower case and without its
// extension (C:\tools\CURSOR-AGENT.EXE runs as cursor-agent).
func ProgramName(argv0 string) string {
	return hostSearcher().programName(argv0)
}

func (s searcher) programName(argv0 string) string {
	if !s.windows {
		return argv0[strings.LastIndexByte(argv0, '/')+1:]
	}
	name := strings.ToLower(argv0[strings.LastIndexAny(argv0, `:\/`)+1:])
	for _, e := range append([]string{".exe"}, s.exts...) {
		if base, ok := strings.CutSuffix(name, e); ok && base != "" {
			return base
		}
	}
	return name
}
