package store

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// releaseMapped advises the kernel that the n bytes mapped at addr are not
// needed: for a shared file mapping it unmaps the pages from this process
// (they stay in the page cache) and a later access faults them back in.
func releaseMapped(addr, n uintptr) error {
	if n == 0 {
		return nil
	}
	if _, _, errno := unix.Syscall(unix.SYS_MADVISE, addr, n, unix.MADV_DONTNEED); errno != 0 {
		return fmt.Errorf("release mapped library pages: %w", errno)
	}
	return nil
}
