package pdf

import (
	"os/exec"
	"runtime"
	"syscall"
)

// tieToParent makes the kernel kill a child (the fallback worker, tesseract) when the thread that started
// it dies, so a killed ingest (kill -9) cannot leave a worker looping on a
// hostile PDF. Linux delivers the parent-death signal when the starting
// thread exits, not the process, so the calling goroutine keeps its thread
// until the worker has been waited for: call the returned func after Wait.
func tieToParent(cmd *exec.Cmd) (release func()) {
	runtime.LockOSThread()
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return runtime.UnlockOSThread
}
