package main

import (
	"context"
	"fmt"
	"io"

	"github.com/broadside/broadside/internal/sandbox"
)

// probe prints what the sandbox enforces here, as the worker would find it
// at start, and fails when SANDBOX=required would refuse to start.
func probe(ctx context.Context, stdout, stderr io.Writer) int {
	cgroups, err := sandbox.Delegate(ctx)
	if err != nil {
		fmt.Fprintf(stdout, "cgroups: none: %v\n", err)
	} else {
		defer cgroups.Close()
		fmt.Fprintf(stdout, "cgroups: %s, %s", cgroups.Version, cgroups.How)
		if cgroups.Dir != "" {
			fmt.Fprintf(stdout, " (%s)", cgroups.Dir)
		}
		fmt.Fprintln(stdout)
	}
	caps := sandbox.Probe(ctx)
	fmt.Fprintln(stdout, caps.String())
	if err := sandbox.Require(caps); err != nil {
		fmt.Fprintf(stderr, "worker: %v\n", err)
		return 1
	}
	return 0
}
