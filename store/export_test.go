package store

import "time"

// SetSmallWrites sets the room a small write needs in the memory map to
// keep the pins and how long it may run before they are evicted anyway,
// until restore.
func SetSmallWrites(room int64, wait time.Duration) (restore func()) {
	r, w := smallWriteRoom, smallWriteWait
	smallWriteRoom, smallWriteWait = room, wait
	return func() { smallWriteRoom, smallWriteWait = r, w }
}
