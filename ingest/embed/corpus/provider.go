package corpus

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpvec/mcpvec/ingest/embed"
)

// FusionWeight is the weight of the corpus vectors against BM25 in a
// hybrid search fused by score, tuned on SciFact's odd-numbered queries
// (docs/benchmarks/corpus-vectors.md).
const FusionWeight = 0.2

// The provider registers when the package is linked in: local, one model
// (fitted, not chosen), score fusion with BM25.
func init() {
	embed.Register(embed.Provider{
		Name: Provider,
		Open: open,
		Traits: func(embed.Identity) embed.Traits {
			return embed.Traits{Local: true, OneModel: true, Batch: 1024, Parallel: 1, ScoreFusion: FusionWeight}
		},
	})
}

// open loads the model id names from the library (o.Models). Errors wrap
// embed.ErrNoModel when the library holds none (not fitted yet), or
// ErrFormat.
func open(_ context.Context, id embed.Identity, o embed.Options) (embed.Embedder, error) {
	if o.Models == nil {
		return nil, errors.New("the corpus embedder keeps its model in a library file, not in a Weaviate collection")
	}
	if id.Model == "" {
		return nil, fmt.Errorf("corpus embedder: %w yet", embed.ErrNoModel)
	}
	b, err := o.Models.LoadModel(id.Model)
	if err != nil {
		return nil, fmt.Errorf("corpus model %s: %w", id.Model, err)
	}
	m, err := Unmarshal(b)
	if err != nil {
		return nil, fmt.Errorf("corpus model %s: %w", id.Model, err)
	}
	if ModelName(m) != id.Model || m.dims != id.Dimensions {
		return nil, fmt.Errorf("corpus model %s: %w: it reads as %s/%d", id.Model, ErrFormat, ModelName(m), m.dims)
	}
	return New(m), nil
}

// Save stores m in ms under its identity's model name.
func Save(ms embed.ModelStore, m *Model) error {
	b, err := m.MarshalBinary()
	if err != nil {
		return err
	}
	return ms.SaveModel(ModelName(m), b)
}
