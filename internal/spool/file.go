package spool

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"sync"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// A part file is a header, then OTLP TracesData in protobuf. The header is
// a magic string and the payload's CRC-32C: a file cut short or damaged
// is told apart from a smaller part, and never delivered as half a session.
var magic = []byte("cursor-otel spool 1\n")

// crcTable is made when first needed: most runs keep nothing, and making
// it (CRC-32C's tables) cost every start of cursor-otel.
var crcTable = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// errDamaged says a part file cannot be read back as it was written.
var errDamaged = errors.New("damaged")

func encode(td *tracepb.TracesData) ([]byte, error) {
	payload, err := proto.Marshal(td)
	if err != nil {
		return nil, fmt.Errorf("encode spans: %w", err)
	}
	out := make([]byte, 0, len(magic)+4+len(payload))
	out = append(out, magic...)
	out = binary.BigEndian.AppendUint32(out, crc32.Checksum(payload, crcTable()))
	return append(out, payload...), nil
}

func decode(b []byte) (*tracepb.TracesData, error) {
	if !bytes.HasPrefix(b, magic) || len(b) < len(magic)+4 {
		return nil, fmt.Errorf("%w: not a cursor-otel spool file", errDamaged)
	}
	b = b[len(magic):]
	sum, payload := binary.BigEndian.Uint32(b), b[4:]
	if crc32.Checksum(payload, crcTable()) != sum {
		return nil, fmt.Errorf("%w: checksum mismatch (cut short or overwritten)", errDamaged)
	}
	td := &tracepb.TracesData{}
	if err := proto.Unmarshal(payload, td); err != nil {
		return nil, fmt.Errorf("%w: %v", errDamaged, err)
	}
	return td, nil
}
