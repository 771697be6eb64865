//go:build !linux

package pdf

import "os/exec"

// tieToParent does nothing where the kernel has no parent-death signal: a
// worker outlives a killed parent until its document deadline passes.
func tieToParent(*exec.Cmd) (release func()) { return func() {} }
