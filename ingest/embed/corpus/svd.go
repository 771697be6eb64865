package corpus

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// sparse is a rows × len(ptr)-1 matrix stored by columns (one per
// passage): column j's nonzeros are idx/val[ptr[j]:ptr[j+1]].
type sparse struct {
	rows  int
	ptr   []int
	idx   []int32
	seeds []uint64 // per column, for the test matrix
	val   []float64
}

func (a *sparse) cols() int { return len(a.ptr) - 1 }

// randomizedSVD returns the cfg.Dims strongest left singular vectors of a
// (rows × Dims) and their singular values, largest first: a Gaussian test
// matrix, PowerIters rounds of subspace iteration with A·Aᵀ re-orthonormalised
// by QR each time, then the eigendecomposition of the small projected
// matrix Qᵀ·A·Aᵀ·Q. Errors: ctx's (wrapped).
func randomizedSVD(ctx context.Context, a *sparse, cfg Config) (*mat.Dense, []float64, error) {
	l := cfg.Dims + cfg.Oversample
	// Y = A·Ω with Ω a cols × l Gaussian matrix, drawn a column of A at a
	// time from that column's seed.
	y := mat.NewDense(a.rows, l, nil)
	yd := y.RawMatrix().Data
	omega := make([]float64, l)
	for j := range a.cols() {
		rng := rand.New(rand.NewPCG(cfg.Seed, a.seeds[j]))
		for i := range omega {
			omega[i] = rng.NormFloat64()
		}
		for p := a.ptr[j]; p < a.ptr[j+1]; p++ {
			r := int(a.idx[p])
			floats.AddScaled(yd[r*l:(r+1)*l], a.val[p], omega)
		}
	}
	q := orthonormalize(y)
	for range cfg.PowerIters {
		if err := checkCtx(ctx, "fit"); err != nil {
			return nil, nil, err
		}
		q = orthonormalize(a.aat(q))
	}
	if err := checkCtx(ctx, "fit"); err != nil {
		return nil, nil, err
	}
	var c mat.Dense
	c.Mul(q.T(), a.aat(q)) // l × l, symmetric up to rounding
	sym := mat.NewSymDense(l, nil)
	for i := range l {
		for j := i; j < l; j++ {
			sym.SetSym(i, j, (c.At(i, j)+c.At(j, i))/2)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(sym, true) {
		return nil, nil, fmt.Errorf("corpus fit: eigendecomposition did not converge")
	}
	vals := eig.Values(nil) // ascending
	var w mat.Dense
	eig.VectorsTo(&w)
	top := mat.NewDense(l, cfg.Dims, nil)
	sigma := make([]float64, cfg.Dims)
	for k := range cfg.Dims {
		src := l - 1 - k
		sigma[k] = math.Sqrt(max(vals[src], 0))
		for i := range l {
			top.Set(i, k, w.At(i, src))
		}
	}
	var u mat.Dense
	u.Mul(q, top)
	return &u, sigma, nil
}

// aat returns A·Aᵀ·q, one column of A at a time: z = a_jᵀ·q, Y += a_j·z.
func (a *sparse) aat(q *mat.Dense) *mat.Dense {
	_, l := q.Dims()
	qd := q.RawMatrix().Data
	y := mat.NewDense(a.rows, l, nil)
	yd := y.RawMatrix().Data
	z := make([]float64, l)
	for j := range a.cols() {
		clear(z)
		for p := a.ptr[j]; p < a.ptr[j+1]; p++ {
			r := int(a.idx[p])
			floats.AddScaled(z, a.val[p], qd[r*l:(r+1)*l])
		}
		for p := a.ptr[j]; p < a.ptr[j+1]; p++ {
			r := int(a.idx[p])
			floats.AddScaled(yd[r*l:(r+1)*l], a.val[p], z)
		}
	}
	return y
}

// orthonormalize returns the thin Q of y's QR factorisation (y is tall),
// overwriting y.
func orthonormalize(y *mat.Dense) *mat.Dense {
	g := y.RawMatrix()
	tau := make([]float64, g.Cols)
	work := make([]float64, 1)
	lapack64.Geqrf(g, tau, work, -1)
	work = make([]float64, int(work[0]))
	lapack64.Geqrf(g, tau, work, len(work))
	lapack64.Orgqr(g, tau, work, -1)
	if n := int(work[0]); n > len(work) {
		work = make([]float64, n)
	}
	lapack64.Orgqr(g, tau, work, len(work))
	return mat.NewDense(g.Rows, g.Cols, g.Data)
}
