package weaviatetest

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Options configures Start. The zero value starts one anonymous node.
type Options struct {
	// Nodes is the cluster size (default 1).
	Nodes int
	// APIKey, when set, turns anonymous access off and accepts only this key.
	APIKey string
	// ReadyTimeout bounds the wait for every node to be ready (default 90 s).
	ReadyTimeout time.Duration
	// Env adds NAME=value settings to every node's environment.
	Env []string
}

// Cluster is a set of running weaviate-server nodes on 127.0.0.1.
type Cluster struct {
	tb    testing.TB
	Nodes []*Node
	opts  Options
	ports []nodePorts
}

// Start launches opts.Nodes nodes, waits until each answers
// /v1/.well-known/ready, and registers their killing as test cleanup. It
// skips the test when weaviate-server is not installed (fails instead under
// MCPVEC_WEAVIATE_TESTS=required) and fails it when a node does not start in
// time.
func Start(tb testing.TB, opts Options) *Cluster {
	tb.Helper()
	SkipUnlessInstalled(tb)
	c, err := launch(tb.TempDir(), opts, tb.Logf) // the folder is removed after the nodes are killed
	if err != nil {
		tb.Fatalf("weaviatetest: %v", err)
	}
	c.tb = tb
	tb.Cleanup(c.killAll)
	return c
}

// SkipUnlessInstalled skips the test when weaviate-server is not installed,
// or fails it under MCPVEC_WEAVIATE_TESTS=required.
func SkipUnlessInstalled(tb testing.TB) {
	tb.Helper()
	if _, err := Binary(); err != nil {
		if required() {
			tb.Fatalf("MCPVEC_WEAVIATE_TESTS=required: %v", err)
		}
		tb.Skipf("skipping Weaviate test: %v (set MCPVEC_WEAVIATE_TESTS=required to fail instead)", err)
	}
}

// Launch starts a cluster outside a test (a benchmark command), with the
// nodes' data under dir; Stop ends it. Kill and Restart need Start's test.
func Launch(dir string, opts Options) (*Cluster, error) {
	return launch(dir, opts, func(string, ...any) {})
}

func launch(dir string, opts Options, logf func(string, ...any)) (*Cluster, error) {
	bin, err := Binary()
	if err != nil {
		return nil, err
	}
	if opts.Nodes <= 0 {
		opts.Nodes = 1
	}
	if opts.ReadyTimeout <= 0 {
		opts.ReadyTimeout = 90 * time.Second
	}
	c := &Cluster{opts: opts}
	// Ports are free when chosen but another process (a parallel test
	// package) may take one before a node binds it: then start over on
	// fresh ports, at most three times.
	for try := 1; ; try++ {
		err := c.start(bin, filepath.Join(dir, "try"+strconv.Itoa(try)))
		if err == nil {
			return c, nil
		}
		stopErr := c.Stop()
		if try == 3 || !errors.Is(err, errPortTaken) {
			return nil, errors.Join(err, stopErr)
		}
		logf("weaviatetest: %v; starting again on other ports", err)
	}
}

// Stop kills every node and waits for them to exit.
func (c *Cluster) Stop() error {
	var errs []error
	for _, n := range c.Nodes {
		if err := n.kill(); err != nil {
			errs = append(errs, fmt.Errorf("kill %s: %w", n.Name, err))
		}
	}
	return errors.Join(errs...)
}

// errPortTaken says a node could not bind a port chosen for it.
var errPortTaken = errors.New("a port was taken before the node bound it")

// start picks ports and starts every node with its data under dir.
func (c *Cluster) start(bin, dir string) error {
	ports, err := freePorts(c.opts.Nodes)
	if err != nil {
		return err
	}
	c.ports, c.Nodes = ports, nil
	for i := range c.opts.Nodes {
		c.Nodes = append(c.Nodes, &Node{Name: "node" + strconv.Itoa(i), bin: bin, Dir: filepath.Join(dir, "node"+strconv.Itoa(i)), ports: ports[i]})
	}
	// The first node founds the memberlist; the others join it, and a
	// join that finds nobody listening ends the process.
	for i, n := range c.Nodes {
		join := []int{}
		if i > 0 {
			join = []int{0}
		}
		if err := n.start(c.env(n, join)); err != nil {
			return err
		}
		if i == 0 && len(c.Nodes) > 1 {
			if err := n.waitGossip(c.opts.ReadyTimeout); err != nil {
				return portTaken(n, err)
			}
		}
	}
	return c.waitReady()
}

// waitReady waits for every node at once, so a node that exits early (a
// port taken, a failed join) ends the wait without waiting out the others.
func (c *Cluster) waitReady() error {
	errs := make(chan error, len(c.Nodes))
	for _, n := range c.Nodes {
		go func() { errs <- portTaken(n, n.waitReady(c.opts.ReadyTimeout)) }()
	}
	var first error
	for range c.Nodes {
		if err := <-errs; err != nil && first == nil {
			first = err
			for _, n := range c.Nodes {
				n.stopWaiting()
			}
		}
	}
	return first
}

// portTaken marks err with errPortTaken when n's log says a bind failed.
func portTaken(n *Node, err error) error {
	if err != nil && strings.Contains(n.logTail(4000), "address already in use") {
		return fmt.Errorf("%w: %w", errPortTaken, err)
	}
	return err
}

// URL returns the mcpvec store URL of collection on node i.
func (c *Cluster) URL(i int, collection string) string {
	return "weaviate://" + c.Nodes[i].Addr() + "/" + collection
}

// APIKey is the key the nodes accept ("" when anonymous).
func (c *Cluster) APIKey() string { return c.opts.APIKey }

// Do sends a raw REST request with a JSON body ("" for none) to node i,
// with the cluster's API key.
func (c *Cluster) Do(i int, method, path, body string) (*http.Response, error) {
	req, err := http.NewRequest(method, "http://"+c.Nodes[i].Addr()+path, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.opts.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.opts.APIKey)
	}
	return http.DefaultClient.Do(req)
}

// Kill stops node i with SIGKILL and waits for it to exit.
func (c *Cluster) Kill(i int) {
	c.tb.Helper()
	if err := c.Nodes[i].kill(); err != nil {
		c.tb.Fatalf("weaviatetest: kill %s: %v", c.Nodes[i].Name, err)
	}
}

// Restart starts node i again on its ports and data, joining the other
// nodes, and waits until it is ready.
func (c *Cluster) Restart(i int) {
	c.tb.Helper()
	n := c.Nodes[i]
	var others []int
	for j := range c.Nodes {
		if j != i {
			others = append(others, j)
		}
	}
	if err := n.start(c.env(n, others)); err != nil {
		c.tb.Fatalf("weaviatetest: %v", err)
	}
	if err := n.waitReady(c.opts.ReadyTimeout); err != nil {
		c.tb.Fatalf("weaviatetest: %v", err)
	}
}

func (c *Cluster) killAll() {
	if err := c.Stop(); err != nil {
		c.tb.Errorf("weaviatetest: %v", err)
	}
	if c.tb.Failed() {
		for _, n := range c.Nodes {
			c.tb.Logf("%s log tail:\n%s", n.Name, n.logTail(4000))
		}
	}
}

// env is node n's environment, joining the memberlist of the nodes numbered
// in join: nothing is inherited but PATH, HOME and TMPDIR.
func (c *Cluster) env(n *Node, join []int) []string {
	p, all := n.ports, c.ports
	var raftJoin []string
	for i, q := range all {
		raftJoin = append(raftJoin, fmt.Sprintf("node%d:%d", i, q.raft))
	}
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "TMPDIR=" + os.TempDir(),
		"PERSISTENCE_DATA_PATH=" + n.Dir,
		"DEFAULT_VECTORIZER_MODULE=none", "ENABLE_MODULES=",
		"DISABLE_TELEMETRY=true", "GO_PROFILING_DISABLE=true", "LOG_LEVEL=warning",
		"QUERY_DEFAULTS_LIMIT=25",
		"CLUSTER_HOSTNAME=" + n.Name, "CLUSTER_IN_LOCALHOST=true",
		"CLUSTER_BIND_ADDR=127.0.0.1", "CLUSTER_ADVERTISE_ADDR=127.0.0.1",
		"CLUSTER_GOSSIP_BIND_PORT=" + strconv.Itoa(p.gossip),
		"CLUSTER_DATA_BIND_PORT=" + strconv.Itoa(p.gossip+1),
		"RAFT_PORT=" + strconv.Itoa(p.raft),
		"RAFT_INTERNAL_RPC_PORT=" + strconv.Itoa(p.raft+1),
		"RAFT_JOIN=" + strings.Join(raftJoin, ","),
		"RAFT_BOOTSTRAP_EXPECT=" + strconv.Itoa(len(all)),
		"GRPC_PORT=" + strconv.Itoa(p.grpc),
		"MEMBERLIST_FAST_FAILURE_DETECTION=true",
		// Repair replicas within seconds, not the production 30 s.
		"ASYNC_REPLICATION_FREQUENCY=1s", "ASYNC_REPLICATION_PROPAGATION_DELAY=1s",
		"ASYNC_REPLICATION_ALIVE_NODES_CHECKING_FREQUENCY=1s",
	}
	env = append(env, c.opts.Env...)
	if len(join) > 0 {
		var addrs []string
		for _, j := range join {
			addrs = append(addrs, fmt.Sprintf("127.0.0.1:%d", all[j].gossip))
		}
		env = append(env, "CLUSTER_JOIN="+strings.Join(addrs, ","))
	}
	if c.opts.APIKey != "" {
		return append(env, "AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=false",
			"AUTHENTICATION_APIKEY_ENABLED=true",
			"AUTHENTICATION_APIKEY_ALLOWED_KEYS="+c.opts.APIKey,
			"AUTHENTICATION_APIKEY_USERS=mcpvec-test")
	}
	return append(env, "AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=true")
}

// nodePorts are one node's ports; gossip+1 (data) and raft+1 (internal
// RPC) are free too, as Weaviate expects by convention.
type nodePorts struct{ http, grpc, gossip, raft int }

// freePorts picks ports for n nodes, holding every listener until all are
// chosen so no two coincide.
func freePorts(n int) ([]nodePorts, error) {
	var held []net.Listener
	defer func() {
		for _, l := range held {
			l.Close()
		}
	}()
	one := func(pair bool) (int, error) {
		for range 50 {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				return 0, fmt.Errorf("pick a free port: %w", err)
			}
			held = append(held, l)
			port := l.Addr().(*net.TCPAddr).Port
			if !pair {
				return port, nil
			}
			if l2, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port+1)); err == nil {
				held = append(held, l2)
				return port, nil
			}
		}
		return 0, fmt.Errorf("no two adjacent free ports on 127.0.0.1")
	}
	out := make([]nodePorts, n)
	for i := range out {
		var errs [4]error
		out[i].http, errs[0] = one(false)
		out[i].grpc, errs[1] = one(false)
		out[i].gossip, errs[2] = one(true)
		out[i].raft, errs[3] = one(true)
		for _, err := range errs {
			if err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}
