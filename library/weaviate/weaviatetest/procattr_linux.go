package weaviatetest

import "syscall"

// procAttr kills the server when the test process dies, so an interrupted
// test run leaves no node behind.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
