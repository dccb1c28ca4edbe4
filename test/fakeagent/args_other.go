//go:build !windows

package main

import "os"

// args are the arguments the stand-in was given.
func args() []string { return os.Args[1:] }
