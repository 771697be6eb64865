package storetest

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// RssFileKB is the file-backed part of this process's resident set in kB
// (RssFile in /proc/self/status): the library pages reads have mapped. It
// skips the test where the kernel does not report it.
func RssFileKB(tb testing.TB) int {
	tb.Helper()
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Skip("no /proc/self/status")
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "RssFile:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	tb.Skip("no RssFile in /proc/self/status")
	return 0
}
