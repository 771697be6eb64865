package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mcpvec/mcpvec/store/weaviate/weaviatetest"
)

// clockTicks is Linux's USER_HZ, the unit of /proc/PID/stat's times.
const clockTicks = 100

// cpuOf is the CPU time (user + system) process pid has used so far, read
// from /proc/PID/stat; 0 when it cannot be read (not Linux, exited).
func cpuOf(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold spaces; fields after it are plain.
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b)[i+1:])
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64) // field 14, utime
	st, _ := strconv.ParseInt(f[12], 10, 64) // field 15, stime
	return time.Duration(ut+st) * time.Second / clockTicks
}

// clusterCPU is the CPU time of a cluster's running nodes (0 for none).
func clusterCPU(cl *weaviatetest.Cluster) time.Duration {
	var sum time.Duration
	if cl != nil {
		for _, n := range cl.Nodes {
			sum += cpuOf(n.PID())
		}
	}
	return sum
}
