package tracer

import (
	"math"

	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"google.golang.org/protobuf/encoding/protowire"
)

// The OTLP metric exporter, like the trace one, turns what it exports
// into protobuf structs and encodes them by reflection; making that
// encoder is most of a wrapped run's metrics export (docs/performance.md,
// "measured choices"), done ahead while the agent ran (Warm), and still
// CPU a run pays for. appendMetricsRequest writes the same
// message straight from the collected metrics: the fields the exporter's
// transformation (go.opentelemetry.io/otel/exporters/otlp/otlpmetric/
// otlpmetricgrpc/internal/transform) sets, checked against it by
// TestWireMetricsRequestIsTheExporters. What cursor-otel never records
// (exponential histograms, summaries, exemplars) is left to the exporter.

// Field numbers of opentelemetry/proto/{collector/metrics,metrics}/v1.
const (
	fRequestResourceMetrics = 1

	fResourceMetricsResource     = 1
	fResourceMetricsScopeMetrics = 2
	fResourceMetricsSchemaURL    = 3
	fScopeMetricsScope           = 1
	fScopeMetricsMetrics         = 2
	fScopeMetricsSchemaURL       = 3

	fMetricName        = 1
	fMetricDescription = 2
	fMetricUnit        = 3
	fMetricGauge       = 5
	fMetricSum         = 7
	fMetricHistogram   = 9

	fGaugeDataPoints      = 1
	fSumDataPoints        = 1
	fSumTemporality       = 2
	fSumMonotonic         = 3
	fHistogramDataPoints  = 1
	fHistogramTemporality = 2

	fNumberStart      = 2
	fNumberTime       = 3
	fNumberDouble     = 4
	fNumberInt        = 6
	fNumberAttributes = 7

	fHistogramPointStart      = 2
	fHistogramPointTime       = 3
	fHistogramPointCount      = 4
	fHistogramPointSum        = 5
	fHistogramPointBuckets    = 6
	fHistogramPointBounds     = 7
	fHistogramPointAttributes = 9
	fHistogramPointMin        = 11
	fHistogramPointMax        = 12

	temporalityDelta      = 1
	temporalityCumulative = 2
)

// appendMetricsRequest appends the ExportMetricsServiceRequest the OTLP
// exporter would send for rm. ok is false when rm holds what only the
// exporter encodes: the caller then leaves the export to it.
func appendMetricsRequest(b []byte, rm *metricdata.ResourceMetrics) (_ []byte, ok bool) {
	b, rms := beginMessage(b, fRequestResourceMetrics)
	var r int
	b, r = beginMessage(b, fResourceMetricsResource)
	for it := rm.Resource.Iter(); it.Next(); {
		b = appendKeyValue(b, fResourceAttributes, it.Attribute())
	}
	b = endMessage(b, r)
	for _, sm := range rm.ScopeMetrics {
		var s int
		b, s = beginMessage(b, fResourceMetricsScopeMetrics)
		b = appendScope(b, fScopeMetricsScope, sm.Scope)
		for _, m := range sm.Metrics {
			if b, ok = appendMetric(b, m); !ok {
				return b, false
			}
		}
		b = appendString(b, fScopeMetricsSchemaURL, sm.Scope.SchemaURL)
		b = endMessage(b, s)
	}
	b = appendString(b, fResourceMetricsSchemaURL, rm.Resource.SchemaURL())
	return endMessage(b, rms), true
}

func appendMetric(b []byte, m metricdata.Metrics) (_ []byte, ok bool) {
	b, mm := beginMessage(b, fScopeMetricsMetrics)
	b = appendString(b, fMetricName, m.Name)
	b = appendString(b, fMetricDescription, m.Description)
	b = appendString(b, fMetricUnit, m.Unit)
	switch d := m.Data.(type) {
	case metricdata.Gauge[int64]:
		b, ok = appendGauge(b, d)
	case metricdata.Gauge[float64]:
		b, ok = appendGauge(b, d)
	case metricdata.Sum[int64]:
		b, ok = appendSum(b, d)
	case metricdata.Sum[float64]:
		b, ok = appendSum(b, d)
	case metricdata.Histogram[int64]:
		b, ok = appendHistogram(b, d)
	case metricdata.Histogram[float64]:
		b, ok = appendHistogram(b, d)
	}
	if !ok {
		return b, false
	}
	return endMessage(b, mm), true
}

// temporality is the OTLP enum of t; false for one the exporter refuses.
func temporality(t metricdata.Temporality) (uint64, bool) {
	switch t {
	case metricdata.DeltaTemporality:
		return temporalityDelta, true
	case metricdata.CumulativeTemporality:
		return temporalityCumulative, true
	}
	return 0, false
}

func appendGauge[N int64 | float64](b []byte, g metricdata.Gauge[N]) ([]byte, bool) {
	if hasExemplars(g.DataPoints) {
		return b, false
	}
	b, m := beginMessage(b, fMetricGauge)
	b = appendNumberPoints(b, fGaugeDataPoints, g.DataPoints)
	return endMessage(b, m), true
}

func appendSum[N int64 | float64](b []byte, s metricdata.Sum[N]) ([]byte, bool) {
	t, ok := temporality(s.Temporality)
	if !ok || hasExemplars(s.DataPoints) {
		return b, false
	}
	b, m := beginMessage(b, fMetricSum)
	b = appendNumberPoints(b, fSumDataPoints, s.DataPoints)
	b = appendVarint(b, fSumTemporality, t)
	if s.IsMonotonic {
		b = appendVarint(b, fSumMonotonic, 1)
	}
	return endMessage(b, m), true
}

func hasExemplars[N int64 | float64](points []metricdata.DataPoint[N]) bool {
	for _, p := range points {
		if len(p.Exemplars) > 0 {
			return true
		}
	}
	return false
}

// appendNumberPoints appends NumberDataPoints; the value's oneof member
// is written even when it is zero.
func appendNumberPoints[N int64 | float64](b []byte, field protowire.Number, points []metricdata.DataPoint[N]) []byte {
	for _, p := range points {
		var m int
		b, m = beginMessage(b, field)
		b = appendFixed64(b, fNumberStart, unixNano(p.StartTime.UnixNano()))
		b = appendFixed64(b, fNumberTime, unixNano(p.Time.UnixNano()))
		switch v := any(p.Value).(type) {
		case int64:
			b = protowire.AppendTag(b, fNumberInt, protowire.Fixed64Type)
			b = protowire.AppendFixed64(b, uint64(v))
		case float64:
			b = protowire.AppendTag(b, fNumberDouble, protowire.Fixed64Type)
			b = protowire.AppendFixed64(b, math.Float64bits(v))
		}
		b = appendAttributes(b, fNumberAttributes, p.Attributes)
		b = endMessage(b, m)
	}
	return b
}

func appendHistogram[N int64 | float64](b []byte, h metricdata.Histogram[N]) ([]byte, bool) {
	t, ok := temporality(h.Temporality)
	if !ok {
		return b, false
	}
	for _, p := range h.DataPoints {
		if len(p.Exemplars) > 0 {
			return b, false
		}
	}
	b, m := beginMessage(b, fMetricHistogram)
	for _, p := range h.DataPoints {
		var dp int
		b, dp = beginMessage(b, fHistogramDataPoints)
		b = appendFixed64(b, fHistogramPointStart, unixNano(p.StartTime.UnixNano()))
		b = appendFixed64(b, fHistogramPointTime, unixNano(p.Time.UnixNano()))
		b = appendFixed64(b, fHistogramPointCount, p.Count)
		b = appendDouble(b, fHistogramPointSum, float64(p.Sum)) // optional: written when zero
		if len(p.BucketCounts) > 0 {
			b = protowire.AppendTag(b, fHistogramPointBuckets, protowire.BytesType)
			b = protowire.AppendVarint(b, uint64(8*len(p.BucketCounts)))
			for _, c := range p.BucketCounts {
				b = protowire.AppendFixed64(b, c)
			}
		}
		if len(p.Bounds) > 0 {
			b = protowire.AppendTag(b, fHistogramPointBounds, protowire.BytesType)
			b = protowire.AppendVarint(b, uint64(8*len(p.Bounds)))
			for _, x := range p.Bounds {
				b = protowire.AppendFixed64(b, math.Float64bits(x))
			}
		}
		b = appendAttributes(b, fHistogramPointAttributes, p.Attributes)
		if v, ok := p.Min.Value(); ok {
			b = appendDouble(b, fHistogramPointMin, float64(v))
		}
		if v, ok := p.Max.Value(); ok {
			b = appendDouble(b, fHistogramPointMax, float64(v))
		}
		b = endMessage(b, dp)
	}
	b = appendVarint(b, fHistogramTemporality, t)
	return endMessage(b, m), true
}

// appendDouble appends an optional double: written whatever its value.
func appendDouble(b []byte, field protowire.Number, v float64) []byte {
	b = protowire.AppendTag(b, field, protowire.Fixed64Type)
	return protowire.AppendFixed64(b, math.Float64bits(v))
}
