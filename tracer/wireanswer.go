package tracer

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// wireAnswer is an export's answer as the collector sent it: an
// Export{Trace,Metrics}ServiceResponse, read by hand (partialSuccess), so
// that no export needs the protobuf library's decoder for it made.
type wireAnswer []byte

// partialSuccess reads the answer's partial_success (field 1): how many
// items the collector rejected (its field 1) and its message (field 2).
// Fields it does not know are skipped, as a decoder would.
func (a wireAnswer) partialSuccess() (rejected int64, msg string, err error) {
	b := []byte(a)
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return 0, "", fmt.Errorf("answer: %w", protowire.ParseError(n))
		}
		b = b[n:]
		if num == 1 && typ == protowire.BytesType {
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return 0, "", fmt.Errorf("answer: %w", protowire.ParseError(n))
			}
			if rejected, msg, err = readPartialSuccess(v); err != nil {
				return 0, "", err
			}
			b = b[n:]
			continue
		}
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return 0, "", fmt.Errorf("answer: %w", protowire.ParseError(n))
		}
		b = b[n:]
	}
	return rejected, msg, nil
}

func readPartialSuccess(b []byte) (rejected int64, msg string, err error) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return 0, "", fmt.Errorf("answer: %w", protowire.ParseError(n))
		}
		b = b[n:]
		switch {
		case num == 1 && typ == protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return 0, "", fmt.Errorf("answer: %w", protowire.ParseError(n))
			}
			rejected, b = int64(v), b[n:]
		case num == 2 && typ == protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return 0, "", fmt.Errorf("answer: %w", protowire.ParseError(n))
			}
			msg, b = string(v), b[n:]
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return 0, "", fmt.Errorf("answer: %w", protowire.ParseError(n))
			}
			b = b[n:]
		}
	}
	return rejected, msg, nil
}
