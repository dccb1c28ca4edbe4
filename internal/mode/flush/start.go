package flush

import "github.com/cursor-otel/cursor-otel/internal/detach"

// DelivererArg, alone on the command line, makes a cursor-otel process
// the background delivery that a run started for itself. main reads it
// before anything else, whatever the binary is called (a cursor-agent
// copy, a symlink, a renamed or moved file): what cursor-otel starts for
// itself is never the agent.
const DelivererArg = "--cursor-otel-background-delivery"

// Start starts the background delivery for the state directory dir on
// its own, out of this process's session, with the environment environ,
// and does not wait for it: the hook or the run goes on now. None is
// started while one is alive: that one looks again before it ends.
func Start(dir string, environ []string) {
	if Want(dir) {
		_ = detach.Start(ownProgram(), []string{DelivererArg}, environ)
	}
}
