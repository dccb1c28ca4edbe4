package settings

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// The readers of a setting's text. Each accepts the spellings people write
// and, for anything else, says what to write instead.

// parseSwitch reads on/off in the usual spellings, in any case.
func parseSwitch(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "1", "yes", "on", "y", "t":
		return true, nil
	case "false", "0", "no", "off", "n", "f", "":
		return false, nil
	}
	return false, fmt.Errorf("not on or off: write true or false (on/off, yes/no and 1/0 work too)")
}

// parseDuration reads a Go duration (3s, 500ms, 1m30s) or a bare number,
// which is seconds (5, 2.5).
func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f < 0 || f > math.MaxInt64/float64(time.Second) || math.IsNaN(f) {
			return 0, fmt.Errorf("not a duration: write 3s, 500ms, or a number of seconds")
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("not a duration: write 3s, 500ms, or a number of seconds")
	}
	return d, nil
}

// sizeUnits are the suffixes parseSize reads, in binary multiples: 16k is
// 16 KiB, as a limit on bytes is meant.
var sizeUnits = []struct {
	suffix string
	scale  int64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"kb", 1 << 10}, {"mb", 1 << 20}, {"k", 1 << 10}, {"m", 1 << 20}, {"b", 1},
}

// parseSize reads a positive number of bytes: 16384, 16k, 16KiB, 1MiB.
func parseSize(s string) (int, error) {
	text := strings.ToLower(strings.TrimSpace(s))
	scale := int64(1)
	for _, u := range sizeUnits {
		if n, ok := strings.CutSuffix(text, u.suffix); ok {
			text, scale = strings.TrimSpace(n), u.scale
			break
		}
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil || n <= 0 || n > (1<<30)/scale {
		return 0, fmt.Errorf("not a size: write a number of bytes such as 16384, 16k or 1MiB (at most 1GiB)")
	}
	return int(n * scale), nil
}

// parseUSD reads an amount of US dollars above zero: 1.50, $1.50, 2.
func parseUSD(s string) (float64, error) {
	text := strings.TrimPrefix(strings.TrimSpace(s), "$")
	f, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if err != nil || f <= 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, fmt.Errorf("not an amount of US dollars above zero: write e.g. 1.50")
	}
	return f, nil
}
