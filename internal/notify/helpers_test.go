package notify_test

import (
	"net"
	"strconv"
)

func netListen(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
