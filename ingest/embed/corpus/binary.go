package corpus

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// formatVersion is the first byte of a serialised model; Unmarshal refuses
// any other.
const formatVersion = 1

// ErrFormat: bytes that are not a model this version can read.
var ErrFormat = errors.New("corpus: not a model of this version")

// MarshalBinary serialises the model compactly (float32 numbers): a
// version byte, the sizes, then each term with its idf, the singular values
// and the projection rows. It never fails.
func (m *Model) MarshalBinary() ([]byte, error) {
	b := make([]byte, 0, 32+len(m.vocab)*12+len(m.proj)*4)
	b = append(b, formatVersion)
	for _, n := range []int{m.dims, len(m.vocab), m.fitted, m.library} {
		b = binary.AppendUvarint(b, uint64(n))
	}
	for i, t := range m.vocab {
		b = binary.AppendUvarint(b, uint64(len(t)))
		b = append(b, t...)
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(m.idf[i]))
	}
	for _, f := range m.sigma {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
	}
	for _, f := range m.proj {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
	}
	return b, nil
}

// Unmarshal reads a model MarshalBinary wrote. Errors wrap ErrFormat.
func Unmarshal(b []byte) (*Model, error) {
	r := reader{b: b}
	if len(b) == 0 || b[0] != formatVersion {
		return nil, fmt.Errorf("%w: version byte", ErrFormat)
	}
	r.b = b[1:]
	m := &Model{dims: r.int(), fitted: 0}
	nv := r.int()
	m.fitted, m.library = r.int(), r.int()
	if r.err != nil || m.dims <= 0 || m.dims > 1<<14 || nv <= 0 || nv > len(r.b)/5 || nv*m.dims*4 > len(r.b) {
		return nil, fmt.Errorf("%w: sizes", ErrFormat)
	}
	m.vocab, m.idf, m.terms = make([]string, nv), make([]float32, nv), make(map[string]int32, nv)
	for i := range nv {
		m.vocab[i] = string(r.bytes(r.int()))
		m.idf[i] = r.float()
		m.terms[m.vocab[i]] = int32(i)
	}
	m.sigma = r.floats(m.dims)
	m.proj = r.floats(nv * m.dims)
	if r.err != nil || len(r.b) != 0 || len(m.terms) != nv {
		return nil, fmt.Errorf("%w: body", ErrFormat)
	}
	return m, m.digest()
}

// reader reads the serialised model; the first short read sets err and
// every later read returns zeros.
type reader struct {
	b   []byte
	err error
}

func (r *reader) int() int {
	v, n := binary.Uvarint(r.b)
	if n <= 0 || v > math.MaxInt32 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return int(v)
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil || n > len(r.b) {
		r.fail()
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) float() float32 {
	b := r.bytes(4)
	if b == nil {
		return 0
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(b))
}

func (r *reader) floats(n int) []float32 {
	b := r.bytes(n * 4)
	out := make([]float32, n)
	for i := range out {
		if b != nil {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[i*4:]))
		}
	}
	return out
}

func (r *reader) fail() {
	if r.err == nil {
		r.err = ErrFormat
	}
	r.b = nil
}
