package main

import (
	"container/heap"
	"slices"
	"time"
)

// fifoTail is the tail that queueing alone gives a closed loop of clients
// on servers CPUs: p99 ÷ (clients ÷ rate), the -overhead table's last
// column, for calls whose service times are service (taken in turn), each
// client sending its next call as soon as the last is answered and the
// calls served first come, first served with no other cost and nothing
// else on the CPUs. With the searches' own measured times it says how much
// of a phase's p99 ÷ (clients ÷ rate) the spread of the searches explains;
// the rest is what serving them on a shared host adds. It is 0 without
// service times.
func fifoTail(service []time.Duration, clients, servers int) float64 {
	if len(service) == 0 || clients < 1 || servers < 1 {
		return 0
	}
	free := make([]time.Duration, servers) // when each server is next free
	arrivals := &timeHeap{}
	for range clients {
		heap.Push(arrivals, time.Duration(0))
	}
	lat := make([]time.Duration, 0, len(service))
	var end time.Duration
	for _, s := range service {
		at := heap.Pop(arrivals).(time.Duration)
		i := slices.Index(free, slices.Min(free))
		start := max(at, free[i])
		free[i] = start + s
		lat = append(lat, free[i]-at)
		end = max(end, free[i])
		heap.Push(arrivals, free[i])
	}
	slices.Sort(lat)
	p99 := lat[min(len(lat)-1, len(lat)*99/100)]
	rate := float64(len(lat)) / end.Seconds()
	return p99.Seconds() / (float64(clients) / rate)
}

// timeHeap is a min-heap of times (container/heap).
type timeHeap []time.Duration

func (h timeHeap) Len() int           { return len(h) }
func (h timeHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h timeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *timeHeap) Push(x any)        { *h = append(*h, x.(time.Duration)) }
func (h *timeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
