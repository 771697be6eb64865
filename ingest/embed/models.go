package embed

import "errors"

// ModelStore keeps the models of embedders fitted on a library (provider
// "corpus") inside that library, by name (the identity's Model). The
// embed package owns the seam; the command that opens the library
// implements it over the library file, since providers must not import
// the store. Implementations are safe for concurrent use.
type ModelStore interface {
	// LoadModel returns the model saved under name, or an error wrapping
	// ErrNoModel when there is none.
	LoadModel(name string) ([]byte, error)
	// SaveModel saves model under name, replacing one of that name.
	SaveModel(name string, model []byte) error
	// DeleteModel removes the model of name; a missing one is no error.
	DeleteModel(name string) error
}

// ErrNoModel: the library holds no fitted model of that name (a library
// too small to fit one yet, or one built elsewhere).
var ErrNoModel = errors.New("no fitted model")
