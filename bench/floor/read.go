package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
)

// readStream reads the stream at path as the least a replay of it must:
// it finds every line, and in each the value of its "type" key, and
// counts the lines of each type. It parses nothing else: no other key, no
// nesting, no escapes, no span. Beside the floor's spans, on another
// goroutine as replay's decoding is, it is what reading a stream costs
// any replay, however its decoder is written.
func readStream(path string) (types map[string]int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	key := []byte(`"type":"`)
	types = map[string]int{}
	for sc.Scan() {
		line := sc.Bytes()
		i := bytes.Index(line, key)
		if i < 0 {
			continue
		}
		v := line[i+len(key):]
		if j := bytes.IndexByte(v, '"'); j >= 0 {
			types[string(v[:j])]++ // no allocation: the compiler looks the bytes up
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return types, nil
}
