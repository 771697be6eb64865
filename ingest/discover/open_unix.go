//go:build unix

package discover

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// fileID is a file's device and inode, which stay the same while a path
// keeps naming the same file.
type fileID struct {
	dev, ino uint64
	set      bool
}

func fileIDOf(info fs.FileInfo) fileID {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}
	}
	return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino), set: true} //nolint:unconvert // widths differ by platform
}

// openNoBlock opens path read-only without blocking on a FIFO (which the
// caller then refuses), and without following a final symlink when
// noFollow is set.
func openNoBlock(path string, noFollow bool) (*os.File, error) {
	flags := os.O_RDONLY | syscall.O_NONBLOCK
	if noFollow {
		flags |= syscall.O_NOFOLLOW
	}
	return os.OpenFile(path, flags, 0)
}

// isLinkRefused reports the error O_NOFOLLOW gives for a final symlink.
func isLinkRefused(err error) bool {
	return errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK)
}
