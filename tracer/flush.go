package tracer

import (
	"context"
	"time"
)

// Flush exports now what has ended, waiting at most the flush timeout: a
// long-lived process (an editor's ACP session) sends each trace as it
// ends rather than at exit. What the collector does not take is held for
// a retry, and kept by Shutdown as ever.
func (p *Provider) Flush(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, p.flushTimeout)
	defer cancel()
	return p.tp.ForceFlush(ctx)
}

// FlushTimeout is how long Flush and Shutdown may take.
func (p *Provider) FlushTimeout() time.Duration { return p.flushTimeout }
