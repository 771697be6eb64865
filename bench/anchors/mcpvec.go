package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/mcpvec/mcpvec/index"
	"github.com/mcpvec/mcpvec/index/lexical"
	"go.etcd.io/bbolt"
)

// boltKV is a bbolt bucket as the lexical index's KV (index.KV).
type boltKV struct{ b *bbolt.Bucket }

func (k boltKV) Get(key []byte) []byte                    { return k.b.Get(key) }
func (k boltKV) Put(key, value []byte) error              { return k.b.Put(key, value) }
func (k boltKV) Delete(key []byte) error                  { return k.b.Delete(key) }
func (k boltKV) ForEach(fn func(k, v []byte) error) error { return k.b.ForEach(fn) }

// runMcpvec builds mcpvec's BM25 index (index/lexical, default k1 and b)
// from the n passages of passagesPath, read one at a time, saves it into a
// bbolt file as an ingest does (the segment in steps), loads it back in
// place (as `serve` does) and searches with SearchQuery, the call the
// library makes for a lexical search.
//
// With saved set it builds nothing: it searches that file, written by an
// earlier run over the same passages (opened read-only), and reports no
// build time.
func runMcpvec(passagesPath string, n int, qs []query, dir string, rounds int, saved string) (result, sizeReport, error) {
	r := result{engine: "mcpvec BM25 (index/lexical)"}
	path := filepath.Join(dir, "mcpvec.db")
	opts := &bbolt.Options{}
	if saved != "" {
		path, opts.ReadOnly = saved, true
	}
	db, err := bbolt.Open(path, 0o600, opts)
	if err != nil {
		return r, sizeReport{}, err
	}
	defer db.Close()
	if saved == "" {
		r.buildWall, r.build, err = timeBuild(func() error { return buildMcpvec(db, passagesPath, n) })
		if err != nil {
			return r, sizeReport{}, fmt.Errorf("mcpvec build: %w", err)
		}
	} else {
		r.note = "index read from " + saved + ": build not measured"
	}
	if st, err := os.Stat(path); err == nil {
		r.size = st.Size()
	}
	tx, err := db.Begin(false)
	if err != nil {
		return r, sizeReport{}, err
	}
	defer tx.Rollback()
	kv := boltKV{tx.Bucket([]byte("lexical"))}
	sizes := breakdown(kv, n)
	ids := func(yield func(uint64) bool) {
		for i := range n {
			if !yield(uint64(i)) {
				return
			}
		}
	}
	// The KV was saved after the last Add, so LoadSynced reads no text.
	ix, _, err := lexical.LoadSynced(lexical.InPlace(kv), lexical.DefaultConfig(), ids, func(id uint64) (string, error) {
		return "", fmt.Errorf("passage %d: texts are not held after the build", id)
	})
	if err != nil {
		return r, sizes, fmt.Errorf("mcpvec load: %w", err)
	}
	defer ix.Unload()
	r.cpu, r.top, err = measure(qs, rounds, func(q string) ([]int, error) {
		rs := ix.SearchQuery(q, nil, 10)
		out := make([]int, len(rs))
		for i, x := range rs {
			out[i] = int(x.ID)
		}
		return out, nil
	})
	return r, sizes, err
}

// buildMcpvec adds the passages of passagesPath to a new index as they
// are read, so the process never holds every passage's text (~1.4 GB at
// a million), and saves it as an ingest's last Save does: Fold, the
// segment written in steps of bounded transactions (PrewriteSegment: one
// transaction would hold the whole segment twice when it commits), then
// the Save that writes its manifest and dictionary. It checks that it
// read n passages.
func buildMcpvec(db *bbolt.DB, passagesPath string, n int) error {
	ix := lexical.New(lexical.DefaultConfig())
	added := 0
	err := eachPassage(passagesPath, true, func(p passage) error {
		ix.Add(uint64(added), p.text)
		added++
		return nil
	})
	if err != nil {
		return err
	}
	if added != n {
		return fmt.Errorf("read %d passages, want %d", added, n)
	}
	ix.Fold()
	update := func(fn func(kv index.KV) error) error {
		return db.Update(func(tx *bbolt.Tx) error {
			b, err := tx.CreateBucketIfNotExists([]byte("lexical"))
			if err != nil {
				return err
			}
			return fn(boltKV{b})
		})
	}
	if err := ix.PrewriteSegment(update); err != nil {
		return err
	}
	return update(ix.Save)
}

// sizeReport says where mcpvec's stored bytes go: the segment's streams
// (see index/lexical/persist_segment.go) and the dictionary.
type sizeReport struct {
	passages, terms, blocks                                      int
	docRows, termRows, blockRows, forward, postings, dict, other int64
	postingsCount                                                int64
}

// breakdown sums the bucket's values by what they hold; the manifest
// layout is persist_segment.go's (version, docs, terms, blocks, fwdLen,
// postLen, ...).
func breakdown(kv boltKV, passages int) sizeReport {
	var s sizeReport
	s.passages = passages
	if m := kv.Get([]byte("\x00lexical-segm")); len(m) >= 29 {
		le := binary.LittleEndian
		s.terms, s.blocks = int(le.Uint32(m[5:])), int(le.Uint32(m[9:]))
		s.forward, s.postings = int64(le.Uint64(m[13:])), int64(le.Uint64(m[21:]))
		s.docRows, s.termRows, s.blockRows = int64(le.Uint32(m[1:]))*24, int64(s.terms)*8, int64(s.blocks)*16
	}
	var seg int64
	_ = kv.ForEach(func(k, v []byte) error {
		switch {
		case bytes.HasPrefix(k, []byte("\x00lexical-segc")):
			seg += int64(len(v))
		case bytes.HasPrefix(k, []byte("\x00lexical-dict")):
			s.dict += int64(len(k) + len(v))
		default:
			s.other += int64(len(k) + len(v))
		}
		return nil
	})
	s.other += seg - (s.docRows + s.termRows + s.blockRows + s.forward + s.postings)
	return s
}

// sizeTable prints the breakdown as Markdown rows.
func (s sizeReport) rows() [][2]string {
	mb := func(b int64) string {
		return fmt.Sprintf("%.1f MB (%.1f B a passage)", float64(b)/1e6, float64(b)/float64(max(1, s.passages)))
	}
	rows := [][2]string{
		{"posting data (slot delta, tf uvarints; blocks of 128)", mb(s.postings)},
		{"forward records (each passage's packed term ids and tfs)", mb(s.forward)},
		{fmt.Sprintf("block headers (%d blocks × 16 B: last, offset, max tf, min length)", s.blocks), mb(s.blockRows)},
		{fmt.Sprintf("term rows (%d terms × 8 B)", s.terms), mb(s.termRows)},
		{"passage rows (24 B: id, length, checksum, counts)", mb(s.docRows)},
		{"dictionary chunks (term strings)", mb(s.dict)},
		{"other keys", mb(s.other)},
	}
	return slices.Clip(rows)
}
