// Package wine runs cursor-otel's Windows build, for real, under Wine 8
// on Linux: the drop-in around an .exe agent and a .cmd shim, exit
// statuses, the stall timeout, hooks.json, a hook conversation into a
// receiver on the Linux side, the spool and flush, the background
// delivery, and the job object. Its tests carry the wine build tag;
// .ci/run installs Wine and runs them (go test -tags wine ./test/wine).
package wine
