package library

import "github.com/mcpvec/mcpvec/store"

// DropIndexes deletes the embedded backend's persisted indexes, vector
// (AuxVectors) and lexical (AuxLexical), from the library file db, so the
// next Open builds them again from the stored passages and vectors
// (`mcpvec check --repair`). The embed cache, which holds a staged
// reindex, is kept. db must be writable, and no Library may be open on it:
// its next Save would write its indexes back. Errors are the store's.
func DropIndexes(db *store.DB) error {
	return db.Update(func(tx *store.Tx) error {
		if err := tx.DropAux(AuxVectors); err != nil {
			return err
		}
		return tx.DropAux(AuxLexical)
	})
}
