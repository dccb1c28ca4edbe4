//go:build windows

package agent

import (
	"os"

	"golang.org/x/sys/windows"
)

// compareObjectHandles (Windows 10 and later) says two handles are one
// kernel object: 2>&1 gives stderr a duplicate of stdout's handle.
var compareObjectHandles = windows.NewLazySystemDLL("kernelbase.dll").NewProc("CompareObjectHandles")

// sameFile says a and b are one file or pipe. os.SameFile cannot say it
// of pipes here (it finds every two pipes the same), so handles are
// compared as kernel objects; files on disk also by their file ids (two
// opens of one file: >out 2>>out).
func sameFile(a, b *os.File) bool {
	ha, hb := windows.Handle(a.Fd()), windows.Handle(b.Fd())
	if compareObjectHandles.Find() == nil {
		if same, _, _ := compareObjectHandles.Call(uintptr(ha), uintptr(hb)); same != 0 {
			return true
		}
	}
	ta, errA := windows.GetFileType(ha)
	tb, errB := windows.GetFileType(hb)
	if errA != nil || errB != nil || ta != windows.FILE_TYPE_DISK || tb != windows.FILE_TYPE_DISK {
		return false
	}
	var ia, ib windows.ByHandleFileInformation
	if windows.GetFileInformationByHandle(ha, &ia) != nil || windows.GetFileInformationByHandle(hb, &ib) != nil {
		return false
	}
	return ia.VolumeSerialNumber == ib.VolumeSerialNumber && ia.FileIndexHigh == ib.FileIndexHigh && ia.FileIndexLow == ib.FileIndexLow
}
