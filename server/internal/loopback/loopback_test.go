package loopback

import "testing"

func TestHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LocalHost": true, "127.0.0.1": true, "127.8.9.10": true,
		"::1": true, "[::1]": true, "::ffff:127.0.0.1": true,
		"": false, "localhost.example": false, "10.0.0.1": false, "[::2]": false,
		"example.com": false, "0.0.0.0": false, "127.0.0.1:80": false,
	} {
		if got := Host(host); got != want {
			t.Errorf("Host(%q) = %v, want %v", host, got, want)
		}
	}
}
