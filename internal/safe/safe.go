// Package safe runs cursor-otel's own work so that its failure never
// costs the user the agent's run: a panic becomes an error.
package safe

import "fmt"

// Run runs fn, turning a panic into an error.
func Run(fn func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v", r)
		}
	}()
	fn()
	return nil
}
