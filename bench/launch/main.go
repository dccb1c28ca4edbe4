// Command launch runs a command and writes what it cost to file
// descriptor 3: wall nanoseconds, CPU nanoseconds, peak RSS in bytes and
// the exit status. go run ./bench measures every command through it.
//
// Why: os/exec starts a child with vfork, sharing the parent's memory until
// exec, and Linux counts that memory in the child's peak RSS. This program
// is small, so the peak it reports is the command's own (a floor of about
// 2 MiB, this launcher's).
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	report := os.NewFile(3, "report")
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "launch:", err)
		os.Exit(1)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	fmt.Fprintf(report, "%d %d %d %d\n", wall, ru.Utime.Nano()+ru.Stime.Nano(), ru.Maxrss<<10, cmd.ProcessState.ExitCode())
}
