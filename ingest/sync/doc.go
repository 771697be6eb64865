// Package sync makes a library match a set of folders ("roots"): it plans
// which files to add, which changed, which moved (same content at a new
// path), which documents to remove because their file is gone, and applies
// that plan through the live library's write path. A Watcher (package
// ingest/watch) re-runs it when files change.
//
// # How a file is judged
//
// A file whose size and modification time equal its document's is
// unchanged and is not read. Otherwise it is hashed (SHA-256): the same
// hash is a touch (only the time is recorded), another hash an update
// (re-extracted and re-embedded). A file at a new path whose hash equals a
// document whose file is gone is a move: the document is re-pointed at the
// new path (store.DB.MoveDocument), with no extraction or embedding. A
// document under a root whose file was not found is removed.
//
// # Caveats
//
//   - Documents outside the roots are left alone, except that one whose
//     file no longer exists can be claimed by a move into a root.
//   - A root that cannot be walked (missing, unreadable) keeps all its
//     documents: an unmounted drive must not empty the library. So does a
//     subfolder that cannot be read. A subfolder that is gone is not an
//     error: its documents are removed.
//   - Each document write, move and removal is its own transaction: a sync
//     killed half way leaves a consistent library, and the next sync
//     finishes the job. A sync that finds nothing to change writes
//     nothing: no document, and Remember stores the roots only when they
//     differ from those stored. The sync keeps no "last synced" time.
//   - With Options.Settle, files modified less than that long ago are left
//     for a later run (Summary.Pending), so a file still being written is
//     not ingested half done.
//   - A Syncer is safe for concurrent use, but two syncs of the same roots
//     at once do redundant work; callers serialise them.
//   - A file is read as discover.File.Open allows: the file that was
//     listed, regular, at most its listed size. One that changed since the
//     walk (a new inode, another size) waits for a later run (Pending); one
//     that became a FIFO, device or link to one fails without being read.
//     Symlinks leading out of a root are skipped unless Root.FollowLinks.
//   - With Options.Settings, a file that failed for a lasting reason
//     (ingest.FileError.Lasting) is remembered (FailuresSetting) with its size and
//     time, and later runs leave it alone (Summary.Unreadable, not
//     Failed) until it changes or Options.Retry.
//   - Errors: Run returns an error only when nothing could be attempted
//     (the library could not be listed, bad options, a cancelled context);
//     per-file and per-root failures are in Summary.Failed.
package sync
