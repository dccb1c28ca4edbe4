package otlprecv

import (
	"errors"
	"fmt"

	collectorpb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
)

// countingCodec is the gRPC codec of a receiver: protobuf, except that a
// receiver counting spans (CountOnly) reads an export's span names from
// the wire format and builds no messages. A benchmark's receiver shares
// the machine with what it measures: unmarshalling spans into Go structs
// costs many times the CPU of walking their bytes (docs/performance.md,
// "measured choices").
type countingCodec struct {
	r     *Receiver
	proto encoding.CodecV2
}

func newCountingCodec(r *Receiver) countingCodec {
	return countingCodec{r: r, proto: encoding.GetCodecV2("proto")}
}

func (c countingCodec) Name() string { return "proto" }

func (c countingCodec) Marshal(v any) (mem.BufferSlice, error) { return c.proto.Marshal(v) }

func (c countingCodec) Unmarshal(data mem.BufferSlice, v any) error {
	if _, ok := v.(*collectorpb.ExportTraceServiceRequest); !ok || !c.r.counting() {
		return c.proto.Unmarshal(data, v)
	}
	buf := data.MaterializeToBuffer(mem.DefaultBufferPool())
	defer buf.Free()
	names := map[string]int{}
	if err := countSpans(buf.ReadOnlyData(), names); err != nil {
		return fmt.Errorf("otlptest: %w", err)
	}
	c.r.counted(v.(*collectorpb.ExportTraceServiceRequest), names)
	return nil
}

// The field numbers on the path to a span's name:
// ExportTraceServiceRequest.resource_spans, ResourceSpans.scope_spans,
// ScopeSpans.spans, Span.name.
const (
	fieldResourceSpans = 1
	fieldScopeSpans    = 2
	fieldSpans         = 2
	fieldName          = 5
)

var errMalformed = errors.New("malformed ExportTraceServiceRequest")

// countSpans adds the names of the spans in an ExportTraceServiceRequest's
// wire format to names.
func countSpans(b []byte, names map[string]int) error {
	return eachField(b, fieldResourceSpans, func(rs []byte) error {
		return eachField(rs, fieldScopeSpans, func(ss []byte) error {
			return eachField(ss, fieldSpans, func(span []byte) error {
				return eachField(span, fieldName, func(name []byte) error {
					names[string(name)]++
					return nil
				})
			})
		})
	})
}

// eachField calls fn with each length-delimited field numbered num in the
// message b, and checks that the rest is well formed.
func eachField(b []byte, num protowire.Number, fn func([]byte) error) error {
	for len(b) > 0 {
		n, typ, l := protowire.ConsumeTag(b)
		if l < 0 {
			return errMalformed
		}
		b = b[l:]
		if n == num && typ == protowire.BytesType {
			v, l := protowire.ConsumeBytes(b)
			if l < 0 {
				return errMalformed
			}
			if err := fn(v); err != nil {
				return err
			}
			b = b[l:]
			continue
		}
		l = protowire.ConsumeFieldValue(n, typ, b)
		if l < 0 {
			return errMalformed
		}
		b = b[l:]
	}
	return nil
}
