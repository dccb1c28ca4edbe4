//go:build unix

package wrap

// hostQuote: sh's reading.
var hostQuote = posixQuote
