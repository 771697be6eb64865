package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// smallTmpfs mounts a tmpfs of size bytes for the test, or skips saying
// why (the mount needs root and a kernel that allows it).
func smallTmpfs(t *testing.T, size int) string {
	t.Helper()
	return mountAt(t, "a small tmpfs", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs")
}

// mountAt runs `mount args... DIR` on a new temporary directory and
// unmounts it on cleanup, or skips saying why (mounting needs root).
func mountAt(t *testing.T, what string, args ...string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", append(args, dir)...).CombinedOutput(); err != nil {
		t.Skipf("cannot mount %s here (needs root): %v %s", what, err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	return dir
}

// fillDisk writes a file until the disk is full.
func fillDisk(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for range 1 << 16 {
		if _, err := f.Write(buf); err != nil {
			return path
		}
	}
	t.Fatal("the disk never filled")
	return ""
}

// readOnlyMount bind-mounts dir read-only at a new path, or skips saying
// why (needs root).
func readOnlyMount(t *testing.T, dir string) string {
	t.Helper()
	mnt := mountAt(t, "a read-only bind mount", "-o", "bind,ro", dir)
	if err := os.WriteFile(filepath.Join(mnt, "probe"), nil, 0o644); err == nil {
		t.Skip("the read-only bind mount is writable here")
	}
	return mnt
}
