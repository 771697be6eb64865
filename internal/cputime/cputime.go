// Package cputime reads CPU time (user plus system) for benchmarks and
// measurement harnesses: on a shared or virtual machine wall time mostly
// measures the other processes and the host, CPU time far less. Every
// function returns 0 where the system does not say (Windows; Thread outside
// Linux, macOS and FreeBSD). All are safe for concurrent use.
package cputime
