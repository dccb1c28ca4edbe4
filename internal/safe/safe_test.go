package safe

import "testing"

func TestRun(t *testing.T) {
	if err := Run(func() {}); err != nil {
		t.Errorf("a function that returns: %v", err)
	}
	if err := Run(func() { panic("boom") }); err == nil || err.Error() != "internal error: boom" {
		t.Errorf("a panic: %v, want internal error: boom", err)
	}
}
