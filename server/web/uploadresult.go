package web

import (
	"cmp"
	"strings"

	"github.com/mcpvec/mcpvec/store"
)

// UploadStatus says what an upload did with one file.
type UploadStatus string

// What an upload can do with a file.
const (
	Added     UploadStatus = "added"     // a new document
	Updated   UploadStatus = "updated"   // a new version of the document uploaded under its name before
	Unchanged UploadStatus = "unchanged" // the same file as before under its name
	Duplicate UploadStatus = "duplicate" // the same content as another document, which stays
	Failed    UploadStatus = "failed"    // not added; Reason says why
)

// Upload is what became of one uploaded file.
type Upload struct {
	Name   string // the file's name as uploaded
	Status UploadStatus
	Reason string // why it failed, or which document it duplicates
	// DocID and Title name its document (for Duplicate, the one it
	// duplicates); DocID is "" when it failed.
	DocID, Title string
	// Note says the file was kept under another name (SaveUploads).
	Note string
}

// DocLookup is what UploadOutcome reads the library through; store.DB has
// both methods. Lookups of an unknown document return an error.
type DocLookup interface {
	DocumentByPath(path string) (*store.Document, error)
	DocumentInfo(id string) (*store.Document, error)
}

// UploadOutcome tells what an ingest did with the file name, saved at path,
// whose content gives the document id id: it compares before, the document
// at path before the ingest (nil: none), with the one lib holds there now.
// A file whose content is not at path now is a duplicate when another
// document holds that content, else failed, with reason (what the ingest
// reported for it; "" gives a general sentence). It is safe for concurrent
// use when lib is.
func UploadOutcome(lib DocLookup, name, path, id string, before *store.Document, reason string) Upload {
	u := Upload{Name: name}
	if after, err := lib.DocumentByPath(path); err == nil && after.ID == id {
		u.DocID, u.Title = after.ID, after.Title
		switch {
		case before == nil:
			u.Status = Added
		case before.ID == id:
			u.Status = Unchanged
		default:
			u.Status = Updated
		}
		return u
	}
	if other, err := lib.DocumentInfo(id); err == nil && other.SourcePath != path {
		src := cmp.Or(other.SourcePath, other.SourceURL)
		u.Status, u.DocID, u.Title, u.Reason = Duplicate, other.ID, other.Title, "same content as "+src
		return u
	}
	u.Status, u.Reason = Failed, cmp.Or(reason, "the ingest did not add it; see the server log")
	return u
}

// uploadSummary is the sentence above an upload's result, "2 files: 1
// added, 1 failed.", and whether any file failed.
func uploadSummary(us []Upload) (string, bool) {
	n := map[UploadStatus]int{}
	for _, u := range us {
		n[u.Status]++
	}
	var parts []string
	for _, st := range []UploadStatus{Added, Updated, Unchanged, Duplicate, Failed} {
		if n[st] > 0 {
			parts = append(parts, formatCount(n[st])+" "+string(st))
		}
	}
	return plural(len(us), "file", "files") + ": " + strings.Join(parts, ", ") + ".", n[Failed] > 0
}
