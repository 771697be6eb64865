package embed

// Traits say how an embedder is best used, so that callers (the live
// library, ingest, reindex) decide by what an embedder is, never by its
// provider's name. A provider reports them when it registers (Provider);
// TraitsOf looks them up.
type Traits struct {
	// Local: the vectors are computed in-process, without network or cost,
	// so recomputing one is cheaper than caching it.
	Local bool
	// LexicalGrade: the vectors match surface forms, like BM25 does; fused
	// with BM25 they add nothing measurable, so search defaults to BM25
	// alone (library.OptionsFor).
	LexicalGrade bool
	// OneModel: the provider has one model (the offline embedder's model
	// name encodes its settings), so a model is not the user's to choose.
	OneModel bool
	// Batch is the preferred number of passages per embedding call and per
	// commit: one request of a network embedder, so a kill loses at most
	// the requests in flight.
	Batch int
	// Parallel is the preferred number of batches in flight; 0 means as
	// many as the caller allows.
	Parallel int
	// ScoreFusion, when above 0, is the weight of the vector list in a
	// hybrid search fused by score (library.FusionScores) rather than by
	// rank: vectors that help BM25 by a small margin (the corpus embedder).
	ScoreFusion float64
}

// defaultTraits are those of an embedder no registered provider describes:
// a network embedder, 256 passages a request.
var defaultTraits = Traits{Batch: 256}

// Batching returns how many passages to embed and commit together and how
// many such batches to keep in flight, given the parallelism the caller
// allows (<= 0: 4).
func (t Traits) Batching(parallel int) (size, par int) {
	if parallel <= 0 {
		parallel = 4
	}
	size, par = t.Batch, parallel
	if size <= 0 {
		size = defaultTraits.Batch
	}
	if t.Parallel > 0 {
		par = t.Parallel
	}
	return size, par
}
