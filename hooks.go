package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/cursor-otel/cursor-otel/internal/conversation"
	"github.com/cursor-otel/cursor-otel/internal/mode/flush"
	"github.com/cursor-otel/cursor-otel/internal/mode/hook"
	"github.com/cursor-otel/cursor-otel/internal/oneline"
	"github.com/cursor-otel/cursor-otel/internal/settings"
)

// hookCmd takes the flags hooks install writes into hooks.json (see
// hookAlone).
type hookCmd struct {
	settings.Capture
	settings.Reports
}

// Run handles one hook event. Always status 0, and silent: a hook's
// output and failures show in the user's transcript.
func (h *hookCmd) Run(status *int) error {
	s, problems := settings.Load(settings.Flags{Content: settings.Content{Capture: h.Capture}, Reports: h.Reports}, os.Getenv)
	dir := conversation.DefaultDir(os.Environ())
	var kept func() bool
	if problems == nil {
		kept = func() bool { return flush.HasKept(s, os.Getenv) }
	}
	*status = hook.Run(hook.Config{Settings: s, Problems: problems, Environ: os.Environ(), Stdin: os.Stdin, Stdout: os.Stdout,
		StateDir: dir, Deliver: func(dir string) { flush.StartFor(s, environment, "CURSOR_OTEL_STATE_DIR="+dir) }, Kept: kept})
	return nil
}

// hookProgram is this program as hooks.json entries name it: its own
// entries are known by what they run, not by the binary's name.
func hookProgram() hook.Program {
	me := self()
	return hook.Program{Path: me.Path, Is: me.Is}
}

type hooksCmd struct {
	Install   hooksInstallCmd   `cmd:"" help:"Add cursor-otel's hook to ~/.cursor/hooks.json (or the project's), beside what is there; the flags given are written into the hook's command."`
	Uninstall hooksUninstallCmd `cmd:"" help:"Remove cursor-otel's entries from hooks.json, giving the file back as it was."`
}

// hooksInstallCmd takes the flags a hook honours, and writes them into
// the hook's command.
type hooksInstallCmd struct {
	Project bool `help:"The project's .cursor/hooks.json (in the current directory) rather than the user's."`
	settings.Capture
	settings.Reports
}

func (h *hooksInstallCmd) Run(status *int) error {
	self := hookProgram()
	var err error
	if self.Args, err = h.hookArgs(); err != nil {
		fmt.Fprintln(os.Stderr, oneline.Join("hooks install: "+err.Error()))
		*status = statusUsage
		return nil
	}
	return editHooks(h.Project, status, func(path string) (string, error) {
		changed, err := hook.Install(path, self)
		said := "already installed in"
		if changed {
			said = "installed in"
		}
		said = fmt.Sprintf("%s %s (%d events)", said, path, len(hook.Events))
		if len(self.Args) > 0 {
			said += ", run as " + self.Command()
		}
		return said, err
	})
}

// hookArgs are the flags given, as the hook's command gives them (see
// hook.CommandFlags): checked as the hook will read them, and files made
// absolute, since Cursor runs a hook in another directory.
func (h *hooksInstallCmd) hookArgs() ([]string, error) {
	given := settings.Flags{Content: settings.Content{Capture: h.Capture}, Reports: h.Reports}
	if _, problems := settings.Load(given, func(string) string { return "" }); problems != nil {
		return nil, problems
	}
	var args []string
	switch {
	case !h.CaptureContent.Set:
	case h.CaptureContent.Text == "true":
		args = append(args, "--capture-content")
	default:
		args = append(args, "--capture-content="+h.CaptureContent.Text)
	}
	for _, f := range []struct{ flag, file string }{{"--summary", h.Summary}, {"--summary-json", h.SummaryJSON}} {
		if f.file == "" {
			continue
		}
		abs, err := filepath.Abs(f.file)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", f.flag, f.file, err)
		}
		args = append(args, f.flag+"="+abs)
	}
	if h.TraceURL != "" {
		args = append(args, "--trace-url="+h.TraceURL)
	}
	return args, hook.CheckArgs(args)
}

type hooksUninstallCmd struct {
	Project bool `help:"The project's .cursor/hooks.json rather than the user's."`
}

func (h *hooksUninstallCmd) Run(status *int) error {
	return editHooks(h.Project, status, func(path string) (string, error) {
		changed, err := hook.Uninstall(path, hookProgram())
		said := "not installed in"
		if changed {
			said = "removed from"
		}
		return fmt.Sprintf("%s %s", said, path), err
	})
}

// editHooks runs edit on the hooks.json that project names and prints
// what it did; a failure is one line on stderr and status 1.
func editHooks(project bool, status *int, edit func(path string) (said string, err error)) error {
	path, err := hooksPath(project)
	if err == nil {
		var said string
		if said, err = edit(path); err == nil {
			fmt.Printf("cursor-otel: hook %s\n", said)
			return nil
		}
	}
	fmt.Fprintln(os.Stderr, oneline.Join(err.Error()))
	*status = 1
	return nil
}

func hooksPath(project bool) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	home, err := os.UserHomeDir()
	if err != nil && !project {
		return "", err
	}
	return hook.HooksPath(project, dir, home), nil
}
