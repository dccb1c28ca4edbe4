//go:build !linux

package main

// ownProgram is what starts this very program again: its path.
func ownProgram() string { return self().Path }
