package corpus_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/ingest/embed/corpus"
)

// topics are word families; a passage draws its words from one family, so
// words of a family co-occur and words of different families never do.
var topics = [][]string{
	{"engine", "wheel", "brake", "gearbox", "piston", "clutch", "tyre", "exhaust", "car", "automobile"},
	{"violin", "cello", "orchestra", "symphony", "conductor", "melody", "harmony", "concerto", "tempo", "chord"},
	{"protein", "enzyme", "membrane", "ribosome", "mitochondria", "nucleus", "cytoplasm", "receptor", "ligand", "kinase"},
	{"glacier", "volcano", "erosion", "sediment", "tectonic", "basalt", "granite", "magma", "fault", "canyon"},
}

// synthetic makes n passages of 12 words each, from a fixed seed; a
// passage never holds both "car" and "automobile", so the two are related
// only through the words they share passages with.
func synthetic(n int, seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]string, n)
	for i := range out {
		t := topics[i%len(topics)]
		var words []string
		for range 12 {
			w := t[r.IntN(len(t))]
			if w == "automobile" && i/4%2 == 0 || w == "car" && i/4%2 == 1 {
				w = t[0]
			}
			words = append(words, w)
		}
		out[i] = strings.Join(words, " ")
	}
	return out
}

func fit(t *testing.T, passages []string, cfg corpus.Config) *corpus.Model {
	t.Helper()
	m, err := corpus.Fit(context.Background(), slices.Values(passages), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func cosine(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

var small = corpus.Config{Dims: 8, Oversample: 4}

// TestFitRelatesCooccurringWords: a query word is near a passage that never
// contains it but shares its context ("automobile" finds "car engine"),
// and far from a passage of another topic. With as many dimensions as
// topics, the model keeps the topics and drops the car/automobile split.
func TestFitRelatesCooccurringWords(t *testing.T) {
	m := fit(t, synthetic(400, 1), corpus.Config{Dims: len(topics), Oversample: 4})
	q := m.Vector("automobile")
	same, other := cosine(q, m.Vector("car engine brake")), cosine(q, m.Vector("violin melody orchestra"))
	t.Logf("automobile · car engine brake = %.3f, · violin melody orchestra = %.3f", same, other)
	if same < 0.5 || same-other < 0.4 {
		t.Errorf("cosine to the paraphrase %.3f, to another topic %.3f: want the paraphrase near (>= 0.5) and well above", same, other)
	}
}

// TestModelRoundTrip: a model read back makes the same vectors and has the
// same ID; damaged bytes are refused with ErrFormat.
func TestModelRoundTrip(t *testing.T) {
	m := fit(t, synthetic(300, 2), small)
	b, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	back, err := corpus.Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := back.ID(), m.ID(); got != want {
		t.Errorf("ID after a round trip = %s, want %s", got, want)
	}
	for _, text := range []string{"enzyme kinase receptor", "glacier", "nothing known here"} {
		if got, want := back.Vector(text), m.Vector(text); !slices.Equal(got, want) {
			t.Errorf("vector of %q differs after a round trip", text)
		}
	}
	for name, bad := range map[string][]byte{"empty": nil, "version": append([]byte{9}, b[1:]...), "short": b[:len(b)-3], "long": append(slices.Clone(b), 0)} {
		if _, err := corpus.Unmarshal(bad); !errors.Is(err, corpus.ErrFormat) {
			t.Errorf("%s: Unmarshal error = %v, want ErrFormat", name, err)
		}
	}
}

// TestFitOrderIndependent: the same passages in another order give (up to
// rounding) the same vectors, since each passage's random row is seeded
// from its text.
func TestFitOrderIndependent(t *testing.T) {
	ps := synthetic(300, 3)
	a := fit(t, ps, small)
	shuffled := slices.Clone(ps)
	rand.New(rand.NewPCG(5, 5)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	b := fit(t, shuffled, small)
	for _, text := range []string{"enzyme kinase receptor", "violin tempo", "automobile"} {
		if c := cosine(a.Vector(text), b.Vector(text)); c < 0.999 {
			t.Errorf("%q: cosine between the two fits' vectors = %.4f, want >= 0.999", text, c)
		}
	}
}

// TestFitSamples: with more passages than Config.Sample the model is
// fitted on Sample of them and records how many the library had; too few
// terms for the dimensions is ErrTooLittle; an unknown text gets a unit
// vector.
func TestFitSamples(t *testing.T) {
	cfg := small
	cfg.Sample = 100
	m := fit(t, synthetic(500, 4), cfg)
	if sample, lib := m.Fitted(); sample != 100 || lib != 500 {
		t.Errorf("Fitted() = %d, %d, want 100, 500", sample, lib)
	}
	if _, err := corpus.Fit(context.Background(), slices.Values(synthetic(10, 4)), small); !errors.Is(err, corpus.ErrTooLittle) {
		t.Errorf("Fit of 10 passages: error = %v, want ErrTooLittle", err)
	}
	if c := cosine(m.Vector("zzz qqq"), m.Vector("zzz qqq")); c < 0.999 || c > 1.001 {
		t.Errorf("a text without known terms: |v|² = %.4f, want 1", c)
	}
}
