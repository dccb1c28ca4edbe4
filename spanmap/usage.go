package spanmap

import (
	"go.opentelemetry.io/otel/attribute"

	"github.com/cursor-otel/cursor-otel/parse"
)

// usageAttributes are a usage's figures by the conventions' names. Their
// input tokens include the cached ones; Cursor's are the fresh input
// alone. Cache writes go under both the conventions' name and the one
// backends read today.
func usageAttributes(u parse.Usage) []attribute.KeyValue {
	return []attribute.KeyValue{
		InputTokens.Int64(u.InputTokens + u.CacheReadTokens + u.CacheCreationTokens), OutputTokens.Int64(u.OutputTokens),
		CacheReadTokens.Int64(u.CacheReadTokens), CacheWriteTokens.Int64(u.CacheCreationTokens), CacheCreateTokens.Int64(u.CacheCreationTokens),
	}
}

// totalAttributes are a session's totals under cursor.usage.*, the
// figures its reports read, whichever spans carry the usage.
func totalAttributes(u parse.Usage) []attribute.KeyValue {
	return []attribute.KeyValue{
		TotalInputTokens.Int64(u.InputTokens + u.CacheReadTokens + u.CacheCreationTokens), TotalOutputTokens.Int64(u.OutputTokens),
		TotalCacheReadTokens.Int64(u.CacheReadTokens), TotalCacheWriteTokens.Int64(u.CacheCreationTokens),
	}
}
