package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/cursor-otel/cursor-otel/parse"
)

// Events are the hooks cursor-otel installs: the session's bounds, each
// generation's prompt, reply, thinking and stop, and every tool call
// through the generic tool hooks (the shell and MCP ones would give the
// same calls twice; the hook reads them too, for a hooks.json that names
// them).
var Events = []string{
	parse.HookSessionStart, parse.HookSessionEnd, parse.HookPrompt, parse.HookResponse, parse.HookThought,
	parse.HookPreToolUse, parse.HookPostToolUse, parse.HookPostToolUseFailure, parse.HookSubagentStart, parse.HookSubagentStop, parse.HookStop, parse.HookPreCompact,
}

// backupSuffix names the copy of hooks.json kept before cursor-otel first
// changed it.
const backupSuffix = ".cursor-otel-backup"

// hooksFile is hooks.json: its version, its hooks by event (each entry
// kept as written), and whatever else it holds.
type hooksFile struct {
	Version int                                     `json:"version"`
	Hooks   map[string][]map[string]json.RawMessage `json:"hooks"`
	Rest    map[string]json.RawMessage              `json:"-"`
}

func readHooks(path string) (hooksFile, []byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return hooksFile{Version: 1, Hooks: map[string][]map[string]json.RawMessage{}}, nil, nil
	}
	if err != nil {
		return hooksFile{}, nil, err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return hooksFile{}, nil, fmt.Errorf("%s is not JSON: %w", path, err)
	}
	f := hooksFile{Version: 1, Hooks: map[string][]map[string]json.RawMessage{}, Rest: map[string]json.RawMessage{}}
	for k, v := range all {
		var err error
		switch k {
		case "version":
			err = json.Unmarshal(v, &f.Version)
		case "hooks":
			err = json.Unmarshal(v, &f.Hooks)
		default:
			f.Rest[k] = v
		}
		if err != nil {
			return hooksFile{}, nil, fmt.Errorf("%s: %q: %w", path, k, err)
		}
	}
	return f, data, nil
}

func (f hooksFile) marshal() []byte {
	all := map[string]any{"version": f.Version, "hooks": f.Hooks}
	for k, v := range f.Rest {
		all[k] = v
	}
	b, _ := json.MarshalIndent(all, "", "  ")
	return append(b, '\n')
}

// Install adds cursor-otel's hook to each of Events in the hooks.json at
// path, beside what is there; run again it changes nothing (an entry of
// another cursor-otel, or of this one under another name or path, is
// replaced: see Program.owns). The file as it was before is kept beside
// it, for Uninstall.
func Install(path string, self Program) (changed bool, err error) {
	f, before, err := readHooks(path)
	if err != nil {
		return false, err
	}
	command, _ := json.Marshal(self.Command())
	for _, event := range Events {
		entries := slices.DeleteFunc(f.Hooks[event], self.ownsEntry)
		f.Hooks[event] = append(entries, map[string]json.RawMessage{"command": command})
	}
	after := f.marshal()
	if bytes.Equal(after, before) {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	backup := path + backupSuffix
	if _, err := os.Stat(backup); errors.Is(err, fs.ErrNotExist) {
		// The file as the user had it: absent is written as absent.
		content := before
		if before == nil {
			content = []byte{}
		}
		if err := os.WriteFile(backup, content, 0o600); err != nil {
			return false, err
		}
	}
	return true, writeAtomic(path, after)
}

// Uninstall removes exactly cursor-otel's entries from the hooks.json at
// path, whichever cursor-otel wrote them (see Program.owns). When nothing
// else in it changed since Install, the file is given back byte for byte
// as it was (or removed, if there was none).
func Uninstall(path string, self Program) (changed bool, err error) {
	f, before, err := readHooks(path)
	if err != nil || before == nil {
		return false, err
	}
	removed := 0
	for event, entries := range f.Hooks {
		kept := slices.DeleteFunc(slices.Clone(entries), self.ownsEntry)
		removed += len(entries) - len(kept)
		if len(kept) == 0 {
			delete(f.Hooks, event)
		} else {
			f.Hooks[event] = kept
		}
	}
	backup := path + backupSuffix
	if removed == 0 {
		// Nothing of cursor-otel's is there: the file is the user's as it
		// stands, left as it is (not rewritten in another layout), and a
		// backup of it is stale.
		_ = os.Remove(backup)
		return false, nil
	}
	if original, err := os.ReadFile(backup); err == nil {
		if sameJSON(original, f) {
			_ = os.Remove(backup)
			if len(original) == 0 {
				return true, os.Remove(path)
			}
			return true, writeAtomic(path, original)
		}
		_ = os.Remove(backup) // the user changed the file since: keep their changes
	}
	after := f.marshal()
	if bytes.Equal(after, before) {
		return false, nil
	}
	return true, writeAtomic(path, after)
}

// ownsEntry says a hooks.json entry is cursor-otel's: its command is.
func (p Program) ownsEntry(e map[string]json.RawMessage) bool {
	var c string
	return json.Unmarshal(e["command"], &c) == nil && p.owns(c)
}

// sameJSON says the original file holds what f does, as JSON.
func sameJSON(original []byte, f hooksFile) bool {
	if len(original) == 0 {
		return len(f.Hooks) == 0 && len(f.Rest) == 0
	}
	var a, b map[string]any
	if json.Unmarshal(original, &a) != nil || json.Unmarshal(f.marshal(), &b) != nil {
		return false
	}
	for _, m := range []map[string]any{a, b} {
		if h, ok := m["hooks"].(map[string]any); ok && len(h) == 0 {
			delete(m, "hooks") // no hooks and an empty "hooks" are the same file
		}
	}
	ab, _ := json.Marshal(a)
	bb, _ := json.Marshal(b)
	return bytes.Equal(ab, bb)
}

func writeAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// HooksPath is the hooks.json Install writes: the user's, or the project's
// (in dir).
func HooksPath(project bool, dir, home string) string {
	if project {
		return filepath.Join(dir, ".cursor", "hooks.json")
	}
	return filepath.Join(home, ".cursor", "hooks.json")
}
