package vector

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/mcpvec/mcpvec/index"
)

// finishScan is finishLoad for a Config.Scan index, which keeps no graph:
// every vector read becomes live and the other slots are freed. A missing
// or unusable header means the next Save rewrites the bucket (st.Rebuilt);
// a header without flagScan, written by a graph build, means the next Save
// deletes the node records (st.Upgraded). Nodes and Inserted stay 0: no
// node is read and none inserted. Load and LoadSums only.
func (x *Index) finishScan(herr error, h header, st *LoadStats) {
	if herr != nil {
		if !errors.Is(herr, errMissing) {
			st.Reason = herr
		}
		st.Rebuilt = true
		x.rewrite = true
		clear(x.removed)
	} else {
		x.rewrite = h.version < formatVersion
		x.dropNodes = !h.scan
		st.Upgraded = x.rewrite || x.dropNodes
		st.Removed = len(x.removed)
	}
	x.publishAll()
}

// publishAll makes live every slot byID names and frees the others.
func (x *Index) publishAll() {
	x.free = x.free[:0]
	for s := 0; s < x.n; s++ {
		if bs, ok := x.byID[x.ids[s]]; ok && bs == uint32(s) {
			x.state[s] = stateLive
			continue
		}
		x.state[s] = stateFree
		x.fresh[s] = false
		x.free = append(x.free, uint32(s))
	}
	x.tombs = 0
	x.live = len(x.byID)
}

// loadScan ends Load for a Scan index: the vectors' codes are computed, so
// it only reads which codes records are saved and current (those vectors
// are not fresh) and which belong to ids with no vector (deleted on the
// next Save). It returns errors from kv.ForEach, wrapped.
func (x *Index) loadScan(kv index.KV, herr error, h header, st *LoadStats) (*Index, LoadStats, error) {
	if herr == nil {
		err := kv.ForEach(func(k, v []byte) error {
			if len(k) == 9 && k[0] == 'c' {
				x.savedCodes(binary.BigEndian.Uint64(k[1:]), v)
			}
			return nil
		})
		if err != nil {
			return nil, *st, fmt.Errorf("read stored codes: %w", err)
		}
	}
	x.finishScan(herr, h, st)
	return x, *st, nil
}

// savedCodes marks id's vector saved when the codes record v matches it,
// and id removed when it has no vector.
func (x *Index) savedCodes(id uint64, v []byte) {
	s, ok := x.byID[id]
	if !ok {
		x.removed[id] = struct{}{}
		return
	}
	if crc, _, _, err := decodeCodes(v, x.dim); err == nil && crc == x.crcs[s] {
		x.fresh[s] = false
	}
}
