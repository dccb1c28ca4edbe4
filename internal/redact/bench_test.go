package redact

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkRedact is 200 KB of tool output without secrets (the common
// case: each rule's keywords are absent and it is skipped), the same with
// a few, and 200 KB of Go source, where words that are keywords of rules
// (key, token, auth, secret) are common and bring their rules to run on
// the text around them.
func BenchmarkRedact(b *testing.B) {
	plain := strings.Repeat("ok  \tgithub.com/acme/app/pkg/module\t0.412s\n", 4600)
	secrets := plain[:len(plain)/2] + "export GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345\ncurl -H 'Authorization: Bearer abcdef0123456789' https://u:pw@host\n" + plain[len(plain)/2:]
	var source strings.Builder
	files, _ := filepath.Glob("../*/*.go")
	for _, f := range files {
		if source.Len() >= len(plain) {
			break
		}
		if !strings.HasSuffix(f, "_rules.go") {
			b, _ := os.ReadFile(f)
			source.Write(b)
		}
	}
	r := New(Options{})
	for _, c := range []struct{ name, text string }{{"no secrets", plain}, {"three secrets", secrets}, {"Go source", source.String()[:len(plain)]}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			for b.Loop() {
				r.Redact(c.text)
			}
		})
	}
}

// BenchmarkNew is building a Redactor with the built-in rules, as every
// start of cursor-otel and every hook event does.
func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		New(Options{Literals: []string{"sk-abcdefghijkl"}})
	}
}
