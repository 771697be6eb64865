// Package discover expands the paths given to `mcpvec ingest` into the list
// of files to ingest: files as given, directories recursively, in a
// deterministic order, de-duplicated, with unsupported files reported as
// skipped rather than as errors.
//
// # Caveats
//
//   - Hidden entries (names starting with ".", such as .git) inside folders
//     are ignored silently, not reported as skipped; a hidden path named as
//     an argument is used.
//   - Symlinks are followed, to files and folders. Each real folder is walked
//     once, which stops symlink loops but also means a folder reached again
//     (through a link, or as a later argument) contributes nothing new; its
//     files keep the path and Rel of the first visit. Within a folder, real
//     entries are visited before symlinks so that real paths win.
//   - De-duplication compares resolved paths, not contents: two copies of the
//     same file are two files. Hard links are two files too.
//   - Sizes come from a stat during the walk; a file can change before it is
//     read. File.Read and File.Open read only the file that was listed: the
//     same device and inode, a regular file, at most its listed size (else
//     ErrChanged or ErrNotRegular), without blocking on a FIFO.
//   - Options.NoOutsideLinks (sync and watch, unless --follow-links) skips
//     symlinks whose target lies outside the folder argument.
//   - A folder that cannot be read is one error in errs; its siblings are
//     still walked. Walk does not return early on the first error except for
//     context cancellation.
//   - WalkWith adds ignore rules for sync and watch: --exclude patterns and
//     .mcpvecignore files (gitignore syntax, see Rules; the last matching
//     pattern wins, and nothing inside an ignored folder can be brought
//     back), and skips partial downloads and editors' temporary files.
//     Ignored entries are reported as skipped, not walked.
//   - Walk holds no shared state and is safe for concurrent use; the
//     supported func is called from the calling goroutine only.
package discover
