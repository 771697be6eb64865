package backoff

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestDelay(t *testing.T) {
	base, maxDelay := 100*time.Millisecond, time.Second
	for n := range 40 {
		d := Delay(n, base, maxDelay, 0)
		full := min(base<<min(n, 30), maxDelay)
		if d < full/2 || d > full {
			t.Errorf("Delay(%d) = %v, want in [%v, %v]", n, d, full/2, full)
		}
	}
	if d := Delay(0, base, maxDelay, 3*time.Second); d < 3*time.Second || d > 3300*time.Millisecond+time.Nanosecond {
		t.Errorf("Delay with Retry-After 3s = %v", d)
	}
}

func TestSleepEndsWithContext(t *testing.T) {
	cause := errors.New("stopped")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	start := time.Now()
	if err := Sleep(ctx, time.Minute); !errors.Is(err, cause) {
		t.Fatalf("Sleep = %v, want the cause", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("Sleep outlived its context")
	}
	if err := Sleep(context.Background(), time.Millisecond); err != nil {
		t.Fatalf("Sleep = %v", err)
	}
}
