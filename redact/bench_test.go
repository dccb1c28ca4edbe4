package redact

import (
	"strings"
	"testing"
)

// BenchmarkRedact is 200 KB of tool output without secrets (the common
// case: each rule's keywords are absent and it is skipped) and with a few.
func BenchmarkRedact(b *testing.B) {
	plain := strings.Repeat("ok  \tgithub.com/acme/app/pkg/module\t0.412s\n", 4600)
	secrets := plain[:len(plain)/2] + "export GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345\ncurl -H 'Authorization: Bearer abcdef0123456789' https://u:pw@host\n" + plain[len(plain)/2:]
	r := New(Options{})
	for name, s := range map[string]string{"no secrets": plain, "three secrets": secrets} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				r.Redact(s)
			}
		})
	}
}
