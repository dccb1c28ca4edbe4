package settings

import (
	"testing"
	"time"
)

func TestParseSwitch(t *testing.T) {
	for in, want := range map[string]bool{
		"true": true, "TRUE": true, "on": true, "On": true, "yes": true, "1": true, " true ": true,
		"false": false, "off": false, "OFF": false, "no": false, "0": false, "": false,
	} {
		if got, err := parseSwitch(in); err != nil || got != want {
			t.Errorf("parseSwitch(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"maybe", "enabled", "2", "truee"} {
		if _, err := parseSwitch(in); err == nil {
			t.Errorf("parseSwitch(%q) took it", in)
		}
	}
}

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"3s": 3 * time.Second, "500ms": 500 * time.Millisecond, "1m30s": 90 * time.Second,
		"5": 5 * time.Second, "2.5": 2500 * time.Millisecond, "0": 0, " 10s ": 10 * time.Second,
	} {
		if got, err := parseDuration(in); err != nil || got != want {
			t.Errorf("parseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"5x", "-1s", "-3", "soon", "", "1e300"} {
		if _, err := parseDuration(in); err == nil {
			t.Errorf("parseDuration(%q) took it", in)
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int{
		"16384": 16384, "16k": 16 << 10, "16K": 16 << 10, "16KiB": 16 << 10, "16 kb": 16 << 10,
		"1MiB": 1 << 20, "2m": 2 << 20, "100b": 100,
	} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"16kk", "-5", "0", "lots", "", "2GiB", "1.5k"} {
		if _, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) took it", in)
		}
	}
}

func TestParseUSD(t *testing.T) {
	for in, want := range map[string]float64{"1.50": 1.5, "$2": 2, " 0.25 ": 0.25} {
		if got, err := parseUSD(in); err != nil || got != want {
			t.Errorf("parseUSD(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"0", "-1", "ten", "", "NaN", "Inf"} {
		if _, err := parseUSD(in); err == nil {
			t.Errorf("parseUSD(%q) took it", in)
		}
	}
}
