//go:build unix

// Command launch runs a command and writes what it cost to file
// descriptor 3: wall nanoseconds, CPU nanoseconds, peak RSS in bytes, the
// exit status and, with -first-byte, nanoseconds from the start to the
// first byte of the command's stdout (-1 when it wrote none). go run ./bench
// measures every command through it.
//
//	launch [-first-byte] CMD ARG…
//
// Why: os/exec starts a child with vfork, sharing the parent's memory until
// exec, and Linux counts that memory in the child's peak RSS. This program
// is small, so the peak it reports is the command's own (a floor of about
// 2 MiB, this launcher's). With -first-byte the command's stdout is a pipe
// this program reads, and copies to its own stdout.
//
// It builds on unix only: the bench measures on the machines it runs on,
// Linux and macOS (rusage has no peak RSS on Windows).
package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	report := os.NewFile(3, "report")
	args := os.Args[1:]
	firstByte := len(args) > 0 && args[0] == "-first-byte"
	if firstByte {
		args = args[1:]
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	var out *os.File
	if firstByte {
		r, w, err := os.Pipe()
		if err != nil {
			fmt.Fprintln(os.Stderr, "launch:", err)
			os.Exit(1)
		}
		out, cmd.Stdout = r, w
		defer w.Close()
	}
	first := time.Duration(-1)
	copied := make(chan struct{})
	start := time.Now()
	err := cmd.Start()
	if out != nil {
		cmd.Stdout.(*os.File).Close()
		go func() {
			defer close(copied)
			buf := make([]byte, 64<<10)
			n, _ := out.Read(buf)
			if n > 0 {
				first = time.Since(start)
				_, _ = os.Stdout.Write(buf[:n])
				_, _ = io.CopyBuffer(os.Stdout, out, buf)
			}
		}()
	} else {
		close(copied)
	}
	if err == nil {
		err = cmd.Wait()
	}
	wall := time.Since(start)
	select {
	case <-copied:
	case <-time.After(5 * time.Second): // something the command left behind holds its stdout
	}
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "launch:", err)
		os.Exit(1)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	fmt.Fprintf(report, "%d %d %d %d %d\n", wall, ru.Utime.Nano()+ru.Stime.Nano(), ru.Maxrss<<10, cmd.ProcessState.ExitCode(), first)
}
