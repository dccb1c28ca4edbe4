package compare

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// A figure is shown rounded, and every change, percentage and threshold
// is computed from the figures as shown, so that what a reader checks
// adds up: seconds to the hundredth, dollars to the hundredth of a cent,
// counts (a median of two runs, failures per run) to the hundredth.
func shown(k kind, v float64) float64 {
	digits := 2
	if k == dollars {
		digits = 4
	}
	p := math.Pow10(digits)
	r := math.Round(v*p) / p
	if r == 0 {
		return 0 // no "-0"
	}
	return r
}

// number writes a shown value without its unit word: seconds with an s,
// dollars with a $, counts with thousands separated and no trailing
// zeros.
func number(k kind, v float64, signed bool) string {
	v = shown(k, v)
	sign := ""
	switch {
	case v < 0:
		sign, v = "-", -v
	case signed:
		sign = "+"
	}
	switch k {
	case seconds:
		return sign + strconv.FormatFloat(v, 'f', 2, 64) + "s"
	case dollars:
		s := trimZeros(strconv.FormatFloat(v, 'f', 4, 64))
		if i := strings.IndexByte(s, '.'); i < 0 {
			s += ".00"
		} else if len(s)-i == 2 {
			s += "0"
		}
		return sign + "$" + s
	}
	return sign + grouped(trimZeros(strconv.FormatFloat(v, 'f', 2, 64)))
}

// withUnit is a shown value with its unit: 12.00s, $0.12, 23,200
// tokens, 0.5 per run.
func (f figure) withUnit(v float64, signed bool) string {
	s := number(f.kind, v, signed)
	switch {
	case f.perRun:
		return s + " per run"
	case f.kind == count:
		if shown(count, v) == 1 || shown(count, v) == -1 {
			return s + " " + f.unit
		}
		return s + " " + f.unit + "s"
	}
	return s
}

// change is NEW's shown value less BASE's, with its unit, and in percent
// of BASE's when that is not 0.
func (f figure) change(base, new float64) string {
	b, n := shown(f.kind, base), shown(f.kind, new)
	out := f.withUnit(n-b, true)
	if b != 0 {
		out += fmt.Sprintf(" (%+d%%)", int(math.Round((n-b)/b*100)))
	}
	return out
}

func trimZeros(s string) string {
	if strings.IndexByte(s, '.') < 0 {
		return s
	}
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}

// grouped separates the thousands of a number's whole part: 95,208.
func grouped(s string) string {
	whole, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if hasFrac {
		return b.String() + "." + frac
	}
	return b.String()
}
