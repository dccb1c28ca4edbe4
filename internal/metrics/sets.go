package metrics

import (
	"sync"

	"go.opentelemetry.io/otel/attribute"

	"github.com/cursor-otel/cursor-otel/spanmap"
)

// attributeSets are the attribute sets of the points recorded, made once
// each: a replay of a fleet's archive records a dozen points per session,
// thousands of sessions, over a handful of distinct sets, and making a set
// (sorting, hashing) cost more than recording the point.
type attributeSets struct {
	mu   sync.Mutex
	made map[setKey]attribute.Set
}

// setKind says which instrument's attributes a set holds.
type setKind uint8

const (
	tokensOf      setKind = iota // operation, token type
	usageOf                      // operation (the inference usage counters)
	operationOf                  // operation, error type
	executeToolOf                // tool name, error type
	toolOf                       // tool name, outcome
	sessionOf                    // outcome, error type
	partOf                       // part
	costOf                       // pricing, currency
	stallOf                      // in flight
	linesOf                      // lines type, tool name
	decisionOf                   // decision, tool name
	waitOf                       // wait kind
	activeOf                     // nothing of its own
)

// scope is what a session's points say of where it ran.
type scope struct {
	surface string // cursor.surface
	repo    string // vcs.repository.name
	model   string // gen_ai.request.model
	client  string // cursor.client.name: the ACP editor
	// The person, when the team opted in.
	userHash, userEmail string
}

// setKey is a set by its kind, its session's scope and its values, in the
// order the kind lists.
type setKey struct {
	kind setKind
	sc   scope
	a, b string
}

// Attribute names of the metrics alone (spanmap has no use for them).
const (
	tokenTypeKey     = attribute.Key("gen_ai.token.type")     // the old token histogram's
	tokenModalityKey = attribute.Key("gen_ai.token.modality") // the inference usage counters'
	outcomeKey       = attribute.Key("cursor.session.outcome")
	partKey          = attribute.Key("cursor.session.part")
	stallKey         = attribute.Key("cursor.stall.in_flight")
	linesTypeKey     = attribute.Key("cursor.lines.type")
	decisionKey      = attribute.Key("cursor.decision")
	waitKindKey      = attribute.Key("cursor.wait.kind")
)

// maxSets bounds the sets kept: past it (a stream with endless distinct
// tool names), sets are made and not kept.
const maxSets = 4096

func (s *attributeSets) of(kind setKind, sc scope, a, b string) attribute.Set {
	key := setKey{kind, sc, a, b}
	s.mu.Lock()
	defer s.mu.Unlock()
	if set, ok := s.made[key]; ok {
		return set
	}
	set := s.set(key)
	if s.made == nil {
		s.made = map[setKey]attribute.Set{}
	}
	if len(s.made) < maxSets {
		s.made[key] = set
	}
	return set
}

// set makes the set the key names. An empty value is left out, as the
// conventions ask of an attribute with no value.
func (s *attributeSets) set(k setKey) attribute.Set {
	attrs := make([]attribute.KeyValue, 0, 12)
	optional := func(key attribute.Key, v string) {
		if v != "" {
			attrs = append(attrs, key.String(v))
		}
	}
	optional(SurfaceKey, k.sc.surface)
	optional(RepositoryKey, k.sc.repo)
	optional(spanmap.RequestModel, k.sc.model)
	if k.sc.surface == SurfaceACP {
		optional(ClientNameKey, k.sc.client)
	}
	optional(UserHashKey, k.sc.userHash)
	optional(UserEmailKey, k.sc.userEmail)
	provider := spanmap.ProviderName.String("cursor")
	switch k.kind {
	case tokensOf:
		attrs = append(attrs, spanmap.OperationName.String(k.a), provider, tokenTypeKey.String(k.b))
	case usageOf:
		// Cursor's usage does not say which modality its tokens were.
		attrs = append(attrs, spanmap.OperationName.String(k.a), provider, tokenModalityKey.String("unknown"))
	case operationOf:
		attrs = append(attrs, spanmap.OperationName.String(k.a), provider)
		optional(spanmap.ErrorType, k.b)
	case executeToolOf:
		attrs = append(attrs, spanmap.OperationName.String("execute_tool"), spanmap.ToolName.String(k.a))
		optional(spanmap.ErrorType, k.b)
	case toolOf:
		attrs = append(attrs, spanmap.ToolName.String(k.a), spanmap.ToolOutcome.String(k.b))
	case sessionOf:
		attrs = append(attrs, outcomeKey.String(k.a))
		optional(spanmap.ErrorType, k.b)
	case partOf:
		attrs = append(attrs, partKey.String(k.a))
	case costOf:
		optional(spanmap.CostPricing, k.a)
		attrs = append(attrs, spanmap.CostCurrency.String(k.b))
	case stallOf:
		attrs = append(attrs, stallKey.String(k.a))
	case linesOf:
		attrs = append(attrs, linesTypeKey.String(k.a))
		optional(spanmap.ToolName, k.b)
	case decisionOf:
		attrs = append(attrs, decisionKey.String(k.a))
		optional(spanmap.ToolName, k.b)
	case waitOf:
		attrs = append(attrs, waitKindKey.String(k.a))
	}
	return attribute.NewSet(attrs...)
}
