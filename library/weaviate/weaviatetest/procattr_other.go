//go:build !linux

package weaviatetest

import "syscall"

func procAttr() *syscall.SysProcAttr { return nil }
