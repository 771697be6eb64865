// Package backoff is the wait between retries that the network clients
// (the embedders) share: exponential, capped, jittered, and honouring a
// server's Retry-After. It is a leaf; its functions are safe for concurrent
// use.
package backoff

import (
	"context"
	"math/rand/v2"
	"time"
)

// Delay is the wait before retry number n (0-based): exponential from
// base, capped at maxDelay, with "equal jitter" (half fixed, half random)
// so that parallel workers do not retry in lockstep. A retryAfter from the
// server wins when it is longer (plus up to a tenth of it, so a crowd does
// not return at once).
func Delay(n int, base, maxDelay, retryAfter time.Duration) time.Duration {
	d := base << min(n, 30)
	if d <= 0 || d > maxDelay {
		d = maxDelay
	}
	d = d/2 + rand.N(d/2+1)
	if retryAfter > 0 {
		d = max(d, retryAfter+rand.N(retryAfter/10+1))
	}
	return d
}

// Sleep waits d or until ctx is done, whose cause it then returns.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}
