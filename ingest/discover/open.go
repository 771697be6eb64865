package discover

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Errors File.Read and File.Open return when the path no longer holds the
// file the walk listed; callers branch on them with errors.Is.
var (
	// ErrChanged means the file was replaced, grew or shrank after it was
	// listed: a later run should look at it again.
	ErrChanged = errors.New("file changed since it was listed")
	// ErrNotRegular means the path now names a FIFO, device, socket or
	// folder, which is never read.
	ErrNotRegular = errors.New("not a regular file")
)

// Open opens the file the walk listed, and only that file: without
// following a final symlink where the listed path was none, without
// blocking on a FIFO, and failing with ErrNotRegular for anything but a
// regular file and with ErrChanged when the path now holds another file
// (device and inode, where the system has them) or another size. Read at
// most f.Size bytes from it: see Read. It is safe for concurrent use.
func (f File) Open() (*os.File, error) {
	fh, err := openNoBlock(f.Path, !f.link)
	if err != nil {
		if isLinkRefused(err) {
			return nil, fmt.Errorf("open %s: %w: it became a symlink", f.Path, ErrChanged)
		}
		return nil, err
	}
	info, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, err
	}
	if err := f.same(info); err != nil {
		fh.Close()
		return nil, err
	}
	return fh, nil
}

// same checks that info, from the opened file, is the listed file.
func (f File) same(info fs.FileInfo) error {
	switch {
	case !info.Mode().IsRegular():
		return fmt.Errorf("open %s: %w (now %s)", f.Path, ErrNotRegular, info.Mode().Type())
	case f.id.set && fileIDOf(info) != f.id:
		return fmt.Errorf("open %s: %w: another file is at its path", f.Path, ErrChanged)
	case f.listed && info.Size() != f.Size:
		return fmt.Errorf("open %s: %w: %d bytes, listed with %d", f.Path, ErrChanged, info.Size(), f.Size)
	}
	return nil
}

// Read returns the listed file's content, opened as Open does. It reads
// at most f.Size bytes, so a file that keeps growing (or a path swapped
// for /dev/zero) cannot make it read for ever: a file with more or fewer
// bytes than listed is ErrChanged. A File not made by a walk is read up
// to its current size. It is safe for concurrent use.
func (f File) Read() ([]byte, error) {
	fh, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	size := f.Size
	if !f.listed {
		info, err := fh.Stat()
		if err != nil {
			return nil, err
		}
		size = info.Size()
	}
	data := make([]byte, size+1)
	n, err := io.ReadFull(fh, data)
	switch {
	case err == nil:
		return nil, fmt.Errorf("read %s: %w: it grew while being read", f.Path, ErrChanged)
	case !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF):
		return nil, fmt.Errorf("read %s: %w", f.Path, err)
	case int64(n) != size:
		return nil, fmt.Errorf("read %s: %w: it shrank while being read", f.Path, ErrChanged)
	}
	return data[:n], nil
}

// Listed returns the File a walk would list for path, which must name a
// regular file (following symlinks), with rel as its Rel. Callers that
// name files themselves (an upload saved to disk) use it so that Read
// checks what it reads the same way.
func Listed(path, rel string) (File, error) {
	info, err := os.Stat(path)
	if err != nil {
		return File{}, err
	}
	if !info.Mode().IsRegular() {
		return File{}, fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	linfo, err := os.Lstat(path)
	if err != nil {
		return File{}, err
	}
	return newFile(path, rel, info, linfo.Mode()&fs.ModeSymlink != 0), nil
}

// newFile is the File a walk lists for path, with info from a stat that
// follows symlinks; link says whether path itself is a symlink.
func newFile(path, rel string, info fs.FileInfo, link bool) File {
	return File{Path: path, Rel: rel, Size: info.Size(), ModTime: info.ModTime(), id: fileIDOf(info), link: link, listed: true}
}
