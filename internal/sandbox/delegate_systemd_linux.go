//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"os"
	"strconv"

	systemd "github.com/coreos/go-systemd/v22/dbus"
	godbus "github.com/godbus/dbus/v5"
)

// delegateBySystemd asks the user's service manager, over D-Bus, to put
// this process in a transient scope of its own with Delegate=yes, then
// takes that scope as its own cgroup. systemd gives the scope the
// controllers it delegates to the user (memory and pids on current
// distributions) and removes it once the process has exited.
func delegateBySystemd(ctx context.Context) (*Delegation, error) {
	conn, err := systemd.NewUserConnectionContext(ctx)
	if err != nil {
		return nil, fmt.Errorf("reach the user's systemd: %w", err)
	}
	defer conn.Close()
	unit := "broadside-" + strconv.Itoa(os.Getpid()) + ".scope"
	props := []systemd.Property{
		systemd.PropDescription("Broadside sandbox"),
		systemd.PropPids(uint32(os.Getpid())),
		{Name: "Delegate", Value: godbus.MakeVariant(true)},
		// Gone once empty, even when a command in it failed.
		{Name: "CollectMode", Value: godbus.MakeVariant("inactive-or-failed")},
	}
	done := make(chan string, 1)
	if _, err := conn.StartTransientUnitContext(ctx, unit, "fail", props, done); err != nil {
		return nil, fmt.Errorf("start the scope %s: %w", unit, err)
	}
	select {
	case result := <-done:
		if result != "done" {
			return nil, fmt.Errorf("start the scope %s: %s", unit, result)
		}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	dir, err := findCgroupV2()
	if err != nil {
		return nil, fmt.Errorf("the scope %s was made, but %w; does user@.service delegate memory and pids? "+
			"(a drop-in with Delegate=memory pids under /etc/systemd/system/user@.service.d/ does)", unit, err)
	}
	return &Delegation{Version: "v2", How: "a systemd user scope " + unit + " with Delegate=yes", Dir: dir[unified]}, nil
}
