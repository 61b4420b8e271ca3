# Sourced by scripts/cgroup2/guest.sh: battleship --sandbox as an ordinary
# user, whose cgroups come from the user's systemd manager (a transient
# scope with Delegate=yes, asked for over D-Bus), as on a contestant's
# laptop. The guest runs no system manager, so this sets up what one gives
# a logged-in user: a cgroup for user@UID.service owned by the user, a
# runtime folder, a session bus, and the user's manager in that cgroup.
step "battleship --sandbox as a user, under the user's systemd manager"
uid=$(id -u nobody)
slice=/sys/fs/cgroup/user.slice/user-$uid.slice
svc=$slice/user@$uid.service
mkdir -p $svc
echo "+memory +pids +cpu" >$slice/cgroup.subtree_control
chown -R $uid:$uid $svc
# The user's manager refuses to start unless the machine booted systemd,
# which it reads from this folder.
mkdir -p /run/systemd/system
rt=/run/user/$uid
home=/tmp/user-home
mkdir -p $rt $home && chown $uid:$uid $rt $home && chmod 700 $rt
cp -r "$REPO/bots/deepship-python3" $home/ && chown -R $uid:$uid $home
asuser() {
  setpriv --reuid=$uid --regid=$uid --clear-groups env -i HOME=$home USER=nobody LANG=C.UTF-8 \
    XDG_RUNTIME_DIR=$rt DBUS_SESSION_BUS_ADDRESS=unix:path=$rt/bus XDG_CACHE_HOME=$home/.cache \
    PATH=/usr/local/bin:/usr/bin:/bin "$@"
}
(echo $BASHPID >$svc/cgroup.procs && exec setpriv --reuid=$uid --regid=$uid --clear-groups env -i \
  XDG_RUNTIME_DIR=$rt dbus-daemon --session --address=unix:path=$rt/bus --nofork --nopidfile) >/tmp/dbus.log 2>&1 &
for i in $(seq 30); do [ -S $rt/bus ] && break; sleep 1; done
(echo $BASHPID >$svc/cgroup.procs && exec setpriv --reuid=$uid --regid=$uid --clear-groups env -i HOME=$home \
  XDG_RUNTIME_DIR=$rt DBUS_SESSION_BUS_ADDRESS=unix:path=$rt/bus /lib/systemd/systemd --user) >/tmp/systemd-user.log 2>&1 &
manager=$!
up() { asuser timeout 10 busctl --user --timeout=5 status org.freedesktop.systemd1 >/dev/null 2>&1; }
for i in $(seq 20); do up && break; sleep 3; done
if ! up; then
  tail -n 30 /tmp/systemd-user.log /tmp/dbus.log
  fail "the user's systemd manager did not come up"
else
  # Started as a desktop terminal's programs are, in a scope of the user's
  # manager: there the manager may move it into a scope of its own. (From
  # a login session's scope, which root owns, the manager asks the system
  # manager to move it, which this guest does not run.)
  mkdir -p $svc/terminal.scope && chown $uid:$uid $svc/terminal.scope
  out=$(cd $home && echo $BASHPID >$svc/terminal.scope/cgroup.procs &&
    asuser timeout 600 "$BIN/battleship" --sandbox --debug -b deepship-python3 deepship-python3 --seed 3 --json -l $home/replay 2>$home/err)
  code=$?
  echo "$out" | tail -n 1 | cut -c1-300
  grep 'cgroups for the sandbox' $home/err
  [ $code = 0 ] || { tail -n 20 $home/err; fail "battleship --sandbox as a user exited $code"; }
  echo "$out" | tail -n 1 | grep -q '"shotsFired":[1-9]' || fail "no shots in the summary"
  grep -q 'how="a systemd user scope broadside-[0-9]*.scope with Delegate=yes"' $home/err ||
    fail "battleship did not get a systemd user scope"
fi
kill $manager 2>/dev/null
