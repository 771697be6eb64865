package admin

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"syscall"
	"time"
)

// MaxSocketPath is the longest socket path SocketPath returns: the smallest
// sun_path among the unix systems mcpvec runs on (macOS and the BSDs: 104
// bytes including the NUL).
const MaxSocketPath = 103

// SocketPath returns where the server for the library at dbPath listens:
// runtimeDir/mcpvec-<hash>.sock when runtimeDir (the caller's
// XDG_RUNTIME_DIR, or "") is absolute and the path fits; else
// /run/user/<uid>/mcpvec-<hash>.sock when that directory exists (it is what
// XDG_RUNTIME_DIR normally is, so a CLI run from cron or sudo -u without the
// variable still finds a server started in a desktop session); else
// <tmp>/mcpvec-<uid>/<hash>.sock. hash is taken from the absolute,
// symlink-resolved dbPath. The result is at most MaxSocketPath bytes unless
// even /tmp is too long. It is safe for concurrent use.
func SocketPath(runtimeDir, dbPath string) string {
	hash := libraryHash(dbPath)
	name := "mcpvec-" + hash + ".sock"
	if filepath.IsAbs(runtimeDir) {
		if p := filepath.Join(runtimeDir, name); len(p) <= MaxSocketPath {
			return p
		}
	}
	if runtime.GOOS == "linux" {
		dir := fmt.Sprintf("/run/user/%d", os.Getuid())
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			return filepath.Join(dir, name)
		}
	}
	sub := fmt.Sprintf("mcpvec-%d", os.Getuid())
	if p := filepath.Join(os.TempDir(), sub, hash+".sock"); len(p) <= MaxSocketPath {
		return p
	}
	return filepath.Join("/tmp", sub, hash+".sock")
}

// LibraryPath returns the absolute, symlink-resolved form of path (the
// cleaned absolute path when it cannot be resolved, e.g. it does not exist
// yet). SocketPath hashes it; clients send it to prove which library they
// mean.
func LibraryPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = filepath.Clean(path)
	}
	if resolved, err := filepath.EvalSymlinks(abs); err == nil {
		abs = resolved
	}
	return abs
}

func libraryHash(dbPath string) string {
	sum := sha256.Sum256([]byte(LibraryPath(dbPath)))
	return hex.EncodeToString(sum[:8])
}

// ensurePrivateDir checks that dir is a directory (not a symlink) owned by
// this user with no group or other permission bits, creating it with 0700
// when create is set.
func ensurePrivateDir(dir string, create bool) error {
	if create {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("socket dir: %w", err)
		}
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("socket dir: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%w: %s is not a directory", ErrInsecureSocket, dir)
	}
	return checkPrivate(dir, fi)
}

// checkPrivate refuses a file with group or other permission bits or owned
// by another user. Windows reports no meaningful permission bits; there the
// socket is private through its directory's ACLs instead.
func checkPrivate(path string, fi fs.FileInfo) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%w: %s has mode %v, want no access for group and others", ErrInsecureSocket, path, fi.Mode().Perm())
	}
	if uid, ok := fileOwner(fi); ok && uid != os.Getuid() {
		return fmt.Errorf("%w: %s is owned by uid %d, not %d", ErrInsecureSocket, path, uid, os.Getuid())
	}
	return nil
}

// checkSocket is what a client verifies before it dials: the directory is
// private, and path itself (not what a symlink points to) is a socket owned
// by this user with mode 0600 or stricter. A missing directory or socket is
// ErrNoServer.
func checkSocket(path string) error {
	if err := ensurePrivateDir(filepath.Dir(path), false); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: %s", ErrNoServer, path)
		}
		return err
	}
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %s", ErrNoServer, path)
	}
	if err != nil {
		return fmt.Errorf("stat socket: %w", err)
	}
	if fi.Mode().Type() != fs.ModeSocket {
		return fmt.Errorf("%w: %s is not a socket (mode %v)", ErrInsecureSocket, path, fi.Mode())
	}
	return checkPrivate(path, fi)
}

// fileOwner returns the owner's uid from the platform's stat structure.
// Every unix syscall.Stat_t has a Uid field, but its type is not the same
// across platforms, so it is read by reflection to keep this file portable
// without build tags.
func fileOwner(fi fs.FileInfo) (int, bool) {
	v := reflect.ValueOf(fi.Sys())
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return 0, false
	}
	f := v.FieldByName("Uid")
	if !f.IsValid() || !f.CanUint() {
		return 0, false
	}
	return int(f.Uint()), true
}

// listen creates the socket with private permissions.
func (s *Server) listen() (net.Listener, error) {
	if err := ensurePrivateDir(filepath.Dir(s.path), true); err != nil {
		return nil, err
	}
	if err := removeStaleSocket(s.path); err != nil {
		return nil, err
	}
	ln, err := net.Listen("unix", s.path)
	if err != nil {
		return nil, err
	}
	ul := ln.(*net.UnixListener)
	ul.SetUnlinkOnClose(false) // we unlink only if the file is still ours
	if err := os.Chmod(s.path, 0o600); err != nil {
		ul.Close()
		return nil, fmt.Errorf("chmod socket: %w", err)
	}
	if s.info, err = os.Lstat(s.path); err != nil {
		ul.Close()
		return nil, fmt.Errorf("stat socket: %w", err)
	}
	return ul, nil
}

// removeStaleSocket removes path if it is a socket nobody listens on (left
// by a killed server). It refuses to touch anything that is not a socket and
// reports ErrInUse when a server answers.
func removeStaleSocket(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("stat socket: %w", err)
	}
	if fi.Mode().Type() != fs.ModeSocket {
		return fmt.Errorf("%s exists and is not a socket", path)
	}
	c, err := net.DialTimeout("unix", path, time.Second)
	if err == nil {
		c.Close()
		return fmt.Errorf("%w: %s", ErrInUse, path)
	}
	if !isStale(err) {
		return fmt.Errorf("probe socket: %w", err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove stale socket: %w", err)
	}
	return nil
}

// isStale reports whether a dial error means nobody listens at the path.
func isStale(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, fs.ErrNotExist)
}
