package store

import (
	"fmt"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
)

// MoveDocument points document id at a new source path and URL and records
// the file's modification time, in one transaction, without touching its
// passages or vectors: it is how a renamed or moved file (same content) is
// followed, and how a touched but unchanged file is remembered. Another
// document already at path is deleted in the same transaction and reported
// in the result (Removed, Replaced) so derived indexes can drop it. It
// returns ErrNotFound for an unknown id; it is safe for concurrent use.
func (db *DB) MoveDocument(id, path, sourceURL string, modTime time.Time) (PutResult, error) {
	var res PutResult
	err := db.updateSized(removeSize, func(tx *bolt.Tx) error {
		res = PutResult{}
		d, err := getDoc(tx, id)
		if err != nil {
			return err
		}
		pb := tx.Bucket(bucketPaths)
		if old := pb.Get([]byte(path)); old != nil && path != "" && string(old) != id {
			if err := deleteDoc(tx, string(old), &res); err != nil {
				return err
			}
		}
		if cur := pb.Get([]byte(d.SourcePath)); cur != nil && string(cur) == id && d.SourcePath != path {
			if err := pb.Delete([]byte(d.SourcePath)); err != nil {
				return err
			}
		}
		if err := deleteRow(tx, d); err != nil {
			return err
		}
		if d.Title == filepath.Base(d.SourcePath) && path != "" {
			d.Title = filepath.Base(path) // a title taken from the file name follows it
		}
		d.SourcePath, d.SourceURL, d.ModTime = path, sourceURL, modTime.UTC()
		if err := putJSON(tx.Bucket(bucketDocs), []byte(id), d); err != nil {
			return err
		}
		if err := putRow(tx, d); err != nil {
			return err
		}
		if len(res.Replaced) > 0 {
			if err := bumpGeneration(tx, &res); err != nil {
				return err
			}
		}
		if path == "" {
			return nil
		}
		return pb.Put([]byte(path), []byte(id))
	})
	if err != nil {
		return PutResult{}, fmt.Errorf("move document %s: %w", id, err)
	}
	return res, nil
}
