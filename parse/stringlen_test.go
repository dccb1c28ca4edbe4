package parse

import (
	"testing"

	"github.com/valyala/fastjson"
)

// stringLen counts what fastjson's unescaping gives, byte for byte, with
// scratch and without, for strings and for values of other types.
func FuzzStringLen(f *testing.F) {
	for _, s := range []string{
		`"plain"`, `""`, `"a\nb\tc\"d\\e\/f\bg\fh\ri"`, `"\u00e9\u4e2d\u0000\u007f"`,
		`"\ud83d\ude00 pair"`, `"\ud83d lone"`, `"\ud83d\u0041 bad pair"`, `"\ude00\ud83d"`,
		`"\ud83d\uZZZZ"`, `"\u12"`, `"\uXYZW"`, `"\x41 \q"`, `"\\\\u0041"`, `"end\\"`,
		`{"a":"b"}`, `[1,"x"]`, `12`, `true`, `null`, "\"\xff\xfe\"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		var p1, p2 fastjson.Parser
		v1, err := p1.ParseBytes(doc)
		if err != nil {
			return
		}
		v2, _ := p2.ParseBytes(doc)
		var scratch []byte
		got, want := stringLen(v1, &scratch), stringLen(v2, nil)
		if got != want {
			t.Fatalf("stringLen(%q) = %d with scratch, %d unescaped", doc, got, want)
		}
	})
}

// A tool's output is counted alike whether its line is short enough to be
// copied to scratch or not.
func TestOutputBytesLongLine(t *testing.T) {
	out := `a\n\u00e9\ud83d\ude00\t\"`
	short := `{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"shellToolCall":{"result":{"success":{"exitCode":0,"stdout":"` + out + `","stderr":"\u0041"}}}}}`
	pad := make([]byte, maxScratchLine)
	for i := range pad {
		pad[i] = 'x'
	}
	long := short[:len(short)-1] + `,"pad":"` + string(pad) + `"}`
	for _, line := range []string{short, long} {
		ev, ok := Decode([]byte(line), 1).(*ToolCompleted)
		if !ok || ev.Call.Facts.OutputBytes == nil {
			t.Fatalf("%d-byte line: %#v", len(line), ev)
		}
		if got := *ev.Call.Facts.OutputBytes; got != 1+1+2+4+1+1+1 {
			t.Errorf("%d-byte line: output of %d bytes, want 11", len(line), got)
		}
	}
}
