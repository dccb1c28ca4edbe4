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
	tokensOf    setKind = iota // operation, model, token type
	operationOf                // operation, model, error type
	toolOf                     // tool name, outcome
	sessionOf                  // outcome, model, error type
	partOf                     // part
	costOf                     // pricing, model
	stallOf                    // in flight
)

// setKey is a set by its kind and values, in the order the kind lists.
type setKey struct {
	kind    setKind
	a, b, c string
}

// tokenTypeKey is the conventions' gen_ai.token.type (a metric attribute
// only: spanmap has no use for it).
const tokenTypeKey = attribute.Key("gen_ai.token.type")

// maxSets bounds the sets kept: past it (a stream with endless distinct
// tool names), sets are made and not kept.
const maxSets = 4096

func (s *attributeSets) of(kind setKind, a, b, c string) attribute.Set {
	key := setKey{kind, a, b, c}
	s.mu.Lock()
	defer s.mu.Unlock()
	if set, ok := s.made[key]; ok {
		return set
	}
	set := key.set()
	if s.made == nil {
		s.made = map[setKey]attribute.Set{}
	}
	if len(s.made) < maxSets {
		s.made[key] = set
	}
	return set
}

// set makes the set the key names. An empty model or error type is left
// out, as the conventions ask of an attribute with no value.
func (k setKey) set() attribute.Set {
	var attrs []attribute.KeyValue
	optional := func(key attribute.Key, v string) {
		if v != "" {
			attrs = append(attrs, key.String(v))
		}
	}
	provider := spanmap.ProviderName.String("cursor")
	switch k.kind {
	case tokensOf:
		attrs = append(attrs, spanmap.OperationName.String(k.a), provider, tokenTypeKey.String(k.c))
		optional(spanmap.RequestModel, k.b)
	case operationOf:
		attrs = append(attrs, spanmap.OperationName.String(k.a), provider)
		optional(spanmap.RequestModel, k.b)
		optional(spanmap.ErrorType, k.c)
	case toolOf:
		attrs = append(attrs, spanmap.ToolName.String(k.a), spanmap.ToolOutcome.String(k.b))
	case sessionOf:
		attrs = append(attrs, outcomeKey.String(k.a))
		optional(spanmap.RequestModel, k.b)
		optional(spanmap.ErrorType, k.c)
	case partOf:
		attrs = append(attrs, partKey.String(k.a))
	case costOf:
		attrs = append(attrs, spanmap.CostPricing.String(k.a))
		optional(spanmap.RequestModel, k.b)
	case stallOf:
		attrs = append(attrs, stallKey.String(k.a))
	}
	return attribute.NewSet(attrs...)
}
