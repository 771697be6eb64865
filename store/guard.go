package store

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
)

// guard runs fn, which reads or writes the bbolt file, and turns a panic or
// a memory fault inside it into an error matching ErrCorrupt. bbolt asserts
// on pages it cannot make sense of and reads the file through a memory map,
// so a truncated or overwritten file shows up as a panic ("page expected to
// be …") or a SIGBUS; neither may cross the store boundary. bbolt rolls the
// transaction back in its own deferred code, so the DB stays usable for
// reads of the parts that are intact.
func (db *DB) guard(fn func() error) error {
	return guardPath(db.path, fn)
}

func guardPath(path string, fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			slog.Debug("bbolt panic", "path", path, "panic", r, "stack", string(debug.Stack()))
			err = fmt.Errorf("%s: %w: %v", path, ErrCorrupt, r)
		}
	}()
	return fn()
}

// bbolt's meta page layout (go.etcd.io/bbolt, file format version 2): a
// 16-byte page header, then magic, version, page size, flags (uint32 each),
// the root bucket (root pgid, sequence), the freelist pgid, the high-water
// pgid, the txid and an FNV-64a checksum of the meta fields before it.
const (
	boltMagic        = 0xED0CDAED
	boltVersion      = 2
	metaOff          = 16
	metaPgidOff      = metaOff + 40
	metaTxidOff      = metaOff + 48
	metaChecksumOff  = metaOff + 56
	minBoltPageSize  = 512
	maxBoltPageSize  = 1 << 16
	defaultPageProbe = 4096
)

// checkFile looks at an existing library file before bbolt maps it. It
// reports an empty file and a file shorter than its own newest valid meta
// page says it is (a truncated copy, a disk that filled during a copy): bbolt
// itself would fault on such a file. A file with no valid meta page at all is
// left to bbolt, which reports it as invalid.
func checkFile(path string) (empty bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return false, nil // bbolt reports it (or creates the file)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("stat library: %w", err)
	}
	if st.Size() == 0 {
		return true, nil
	}
	pgid, pageSize, ok := newestMeta(f)
	if !ok {
		return false, nil
	}
	if need := int64(pgid) * int64(pageSize); need > st.Size() {
		return false, fmt.Errorf("%s: %w: the file is %d bytes but its pages reach %d bytes (truncated)",
			path, ErrCorrupt, st.Size(), need)
	}
	return false, nil
}

// newestMeta returns the high-water pgid and page size of the valid meta page
// with the highest txid.
func newestMeta(r io.ReaderAt) (pgid uint64, pageSize uint32, ok bool) {
	var best uint64
	buf := make([]byte, metaChecksumOff+8)
	if _, err := r.ReadAt(buf, 0); err != nil {
		return 0, 0, false
	}
	ps := binary.LittleEndian.Uint32(buf[metaOff+8:])
	if ps < minBoltPageSize || ps > maxBoltPageSize {
		ps = defaultPageProbe
	}
	for i := int64(0); i < 2; i++ {
		if _, err := r.ReadAt(buf, i*int64(ps)); err != nil || !validMeta(buf) {
			continue
		}
		txid := binary.LittleEndian.Uint64(buf[metaTxidOff:])
		if !ok || txid > best {
			best, ok = txid, true
			pgid = binary.LittleEndian.Uint64(buf[metaPgidOff:])
			pageSize = binary.LittleEndian.Uint32(buf[metaOff+8:])
		}
	}
	return pgid, pageSize, ok
}

func validMeta(page []byte) bool {
	if binary.LittleEndian.Uint32(page[metaOff:]) != boltMagic ||
		binary.LittleEndian.Uint32(page[metaOff+4:]) != boltVersion {
		return false
	}
	h := fnv.New64a()
	h.Write(page[metaOff:metaChecksumOff])
	return h.Sum64() == binary.LittleEndian.Uint64(page[metaChecksumOff:])
}

// GuardFaults runs fn, which reads values of the file in place (through a
// Pin), and turns a memory fault inside it into an error matching
// ErrCorrupt: the file cut short under the map by another process (the
// store locks it, but nothing stops a process that ignores the lock) makes
// the pages past its new end fault. Other panics pass through. It is safe
// for concurrent use.
func (db *DB) GuardFaults(fn func()) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(interface{ Addr() uintptr })
			if !ok {
				panic(r)
			}
			slog.Debug("fault reading the library in place", "path", db.path, "addr", f.Addr())
			err = fmt.Errorf("%s: %w: a fault reading the file at address %#x (cut short?)", db.path, ErrCorrupt, f.Addr())
		}
	}()
	fn()
	return nil
}
