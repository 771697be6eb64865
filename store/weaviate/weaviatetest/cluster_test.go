package weaviatetest

import (
	"net/http"
	"testing"
)

func TestStartOneNode(t *testing.T) {
	c := Start(t, Options{})
	resp, err := http.Get("http://" + c.Nodes[0].Addr() + "/v1/meta")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/meta: %s", resp.Status)
	}
}
