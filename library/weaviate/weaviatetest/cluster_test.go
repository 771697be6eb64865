package weaviatetest

import (
	"fmt"
	"net"
	"testing"
)

// Starting real nodes is tested by library/weaviate, which uses this package;
// this checks the port choice those starts rely on.
func TestFreePorts(t *testing.T) {
	ports, err := freePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		for _, port := range []int{p.http, p.grpc, p.gossip, p.gossip + 1, p.raft, p.raft + 1} {
			if seen[port] {
				t.Errorf("port %d chosen twice in %+v", port, ports)
			}
			seen[port] = true
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
			if err != nil {
				t.Errorf("port %d is not free: %v", port, err)
				continue
			}
			l.Close()
		}
	}
}
