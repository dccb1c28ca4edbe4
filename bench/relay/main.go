// Command relay is the plain relay go run ./bench measures ACP forwarding
// against: relay CMD ARGS... runs CMD and copies its stdin and stdout,
// byte for byte as they arrive, each way in a loop of one read and one
// write; stderr is CMD's own. It exits with CMD's status.
package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
)

func main() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		fail(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		fail(err)
	}
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	go func() { copyLoop(in, os.Stdin); in.Close() }()
	copyLoop(os.Stdout, out)
	if err := cmd.Wait(); err != nil {
		if e, ok := err.(*exec.ExitError); ok {
			os.Exit(e.ExitCode())
		}
		fail(err)
	}
}

// copyLoop copies as a relay written by hand does: read, write.
func copyLoop(dst io.Writer, src io.Reader) {
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "relay:", err)
	os.Exit(126)
}
