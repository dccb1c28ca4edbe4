package collector

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cursor-otel/cursor-otel/internal/otlptest"
)

// sampling is what a tier's samplers are set to, through the env
// settings sampler.yaml reads.
type sampling struct {
	decisionWait time.Duration // DECISION_WAIT: the most a trace is held
	afterRoot    time.Duration // DECISION_WAIT_AFTER_ROOT
	percent      int           // SAMPLING_PERCENTAGE
	slow         time.Duration // SLOW_SESSION_MS
}

// tier is a team's collectors on 127.0.0.1 as docker-compose.yml's team
// profile runs them: gateways routing by trace id to samplers, each
// sampler sending what it keeps to a trace store of its own, so that
// which sampler kept a trace shows.
type tier struct {
	gateways, samplers []*collector
	stores             []*otlptest.Receiver
	sampling           sampling
}

// startTier starts two samplers, then two gateways in front of them.
func startTier(t *testing.T, s sampling) *tier {
	t.Helper()
	tr := &tier{sampling: s}
	var hostnames []string
	for i := range 2 {
		store := otlptest.StartGRPC(t)
		tr.stores = append(tr.stores, store)
		grpcPort := freePort(t)
		hostnames = append(hostnames, addr(grpcPort))
		c := newSampler(t, fmt.Sprintf("sampler-%d", i+1), grpcPort, store, map[string]string{
			"DECISION_WAIT":            s.decisionWait.String(),
			"DECISION_WAIT_AFTER_ROOT": s.afterRoot.String(),
			"SAMPLING_PERCENTAGE":      strconv.Itoa(s.percent),
			"SLOW_SESSION_MS":          strconv.FormatInt(s.slow.Milliseconds(), 10),
		})
		c.start(t)
		tr.samplers = append(tr.samplers, c)
	}
	for i := range 2 {
		c := newCollector(t, fmt.Sprintf("gateway-%d", i+1), "gateway.yaml", map[string]string{
			"OTLP_GRPC_ENDPOINT": addr(freePort(t)),
			"OTLP_HTTP_ENDPOINT": addr(freePort(t)),
			"SAMPLERS":           "[" + strings.Join(hostnames, ", ") + "]",
		})
		c.start(t)
		tr.gateways = append(tr.gateways, c)
	}
	return tr
}

// endpoint is the OTEL_EXPORTER_OTLP_ENDPOINT of gateway i for protocol
// (grpc or http/protobuf).
func (tr *tier) endpoint(i int, protocol string) string {
	if protocol == "grpc" {
		return "http://" + tr.gateways[i].env["OTLP_GRPC_ENDPOINT"]
	}
	return "http://" + tr.gateways[i].env["OTLP_HTTP_ENDPOINT"]
}

// spanCount is how many spans the trace stores hold.
func (tr *tier) spanCount() int {
	n := 0
	for _, s := range tr.stores {
		n += s.SpanCount()
	}
	return n
}

// watchRSS samples the samplers' resident memory every 200 ms until the
// test ends; what it returns gives the most seen of any so far.
func (tr *tier) watchRSS(t *testing.T) func() int64 {
	var mu sync.Mutex
	var most int64
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	go func() {
		for {
			for _, c := range tr.samplers {
				now, _ := c.rss()
				mu.Lock()
				most = max(most, now)
				mu.Unlock()
			}
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
	return func() int64 {
		mu.Lock()
		defer mu.Unlock()
		return most
	}
}
