package hook

import (
	"github.com/cursor-otel/cursor-otel/internal/spool"
	"github.com/cursor-otel/cursor-otel/tracer"
)

// noOTLP is the destination of turns recorded with no OTLP exporter set:
// they are reported, and sent nowhere.
const noOTLP = "none"

// destinationID is where the settings read with getenv send, as the
// spool's parts name it (the spool in spoolDir), making the spool's key
// if there is none.
func destinationID(spoolDir string, getenv func(string) string) (string, error) {
	to, ok := tracer.Destination(getenv)
	if !ok {
		return noOTLP, nil
	}
	return spool.Open(spoolDir, 0).ID(to)
}
