#!/usr/bin/env bash
# make test-cgroup2: the sandbox on a cgroup v2 kernel. The machines the
# tests usually run on are cgroup v1; current distributions (Debian 12,
# Ubuntu 22.04+, Fedora, RHEL 9, Kubernetes nodes) are cgroup v2 only. This
# boots the machine's Debian kernel with cgroup v1 disabled under QEMU's
# emulation (no KVM needed), with the host's root shared read-only over 9p
# so the guest runs the same programs, and runs scripts/cgroup2/guest.sh
# inside: the sandbox probe, the hostile suites, a match of battleship
# --sandbox from a root shell with a virtualenv first on PATH, and a worker
# playing ranked matches with SANDBOX=required against this machine's
# database.
#
# Needs qemu-system-x86_64, a kernel under /boot, cpio and PostgreSQL
# (TEST_DATABASE_URL, or a private server as `make test` starts).
# scripts/setup.sh --test installs them. Without them it skips, or fails
# where BROADSIDE_TEST_REQUIRE_ALL is set (CI).
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD

missing() {
  case "${BROADSIDE_TEST_REQUIRE_ALL:-}" in
    "" | 0 | false) echo "test-cgroup2: skipped: $*" >&2; exit 0 ;;
    *) echo "test-cgroup2: FAIL: $*" >&2; exit 1 ;;
  esac
}
command -v qemu-system-x86_64 >/dev/null || missing "qemu-system-x86_64 is not installed (scripts/setup.sh --test)"
command -v cpio >/dev/null || missing "cpio is not installed (scripts/setup.sh --test)"
command -v bwrap >/dev/null || missing "bubblewrap is not installed (scripts/setup.sh --test)"
kernel=$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1)
[ -n "$kernel" ] || missing "no kernel under /boot (the linux-image-amd64 package)"
kver=${kernel#/boot/vmlinuz-}
[ -d "/lib/modules/$kver" ] || missing "no modules for $kver under /lib/modules"

if [ -z "${TEST_DATABASE_URL:-}" ]; then
  TEST_DATABASE_URL=$(PG_EXTRA_OPTS="-c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    scripts/postgres.sh data/test-postgres "${TEST_PG_PORT:-54330}")
fi

work=$(mktemp -d /tmp/broadside-cgroup2-XXXXXX)
# Readable by all: the guest runs a match as an ordinary user too.
chmod 755 "$work"
db="broadside_cgroup2_$$"
cleanup() {
  psql "$TEST_DATABASE_URL" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "test-cgroup2: building the binaries and the guest's initramfs" >&2
t0=$(date +%s)
mkdir -p "$work/bin" "$work/initrd/modules"
go build -o "$work/bin/" ./cmd/battleship ./cmd/worker ./cmd/portal
go test -c -o "$work/bin/sandbox.test" ./internal/sandbox
# The Go reference bot, built here: the guest compiles nothing.
cp -r bots/entelect-go-reference "$work/bin/"
(cd "$work/bin/entelect-go-reference" && go build -o bot .)
CGO_ENABLED=0 go build -o "$work/initrd/init" ./scripts/cgroup2/guestinit

# The modules for virtio, 9p and the network, each after what it needs.
modules=""
for m in virtio_pci 9pnet_virtio 9p virtio_net; do
  line=$(grep -E "(^|/)$m\.ko(\.xz|\.zst)?:" "/lib/modules/$kver/modules.dep") ||
    missing "module $m not found for $kver"
  for dep in $(echo "${line#*:}" | tr ' ' '\n' | tac) "${line%%:*}"; do
    name=$(basename "$dep")
    case ",$modules," in *",/modules/${name%%.ko*}.ko,"*) continue ;; esac
    case "$dep" in
      *.xz) xz -dc "/lib/modules/$kver/$dep" >"$work/initrd/modules/${name%.xz}" ;;
      *.zst) zstd -qdc "/lib/modules/$kver/$dep" >"$work/initrd/modules/${name%.zst}" ;;
      *) cp "/lib/modules/$kver/$dep" "$work/initrd/modules/" ;;
    esac
    modules="$modules,/modules/${name%%.ko*}.ko"
  done
done
(cd "$work/initrd" && find . | cpio -o -H newc --quiet) >"$work/initrd.cpio"

# The guest reaches this machine's loopback at 10.0.2.2 (QEMU's user-mode
# network): the worker inside uses a fresh database of this server.
psql "$TEST_DATABASE_URL" -qc "CREATE DATABASE $db" >/dev/null
guest_db=$(echo "$TEST_DATABASE_URL" | sed -E "s#@(127\.0\.0\.1|localhost|\[::1\])([:/])#@10.0.2.2\2#; s#/[^/?]*(\?|$)#/$db\1#")
case "$guest_db" in
  *@10.0.2.2*) ;;
  *) missing "TEST_DATABASE_URL must name a server on this machine's loopback by address (got $TEST_DATABASE_URL)" ;;
esac
cat >"$work/env" <<EOF
REPO=$repo
BIN=$work/bin
DATABASE_URL=$guest_db
PARTS=${CGROUP2_PARTS:-}
EOF
echo "test-cgroup2: built in $(($(date +%s) - t0)) s; booting $kver with cgroup v1 disabled (emulated, no KVM)" >&2

t1=$(date +%s)
status=0
timeout "${CGROUP2_TIMEOUT:-1500}" qemu-system-x86_64 -accel tcg,thread=multi -m 3072 -smp 2 \
  -nographic -no-reboot -kernel "$kernel" -initrd "$work/initrd.cpio" \
  -append "console=ttyS0 cgroup_no_v1=all panic=-1 quiet loglevel=3 broadside.script=$repo/scripts/cgroup2/guest.sh broadside.work=$work broadside.repo=$repo broadside.modules=${modules#,}" \
  -virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
  -virtfs "local,path=$work,mount_tag=work,security_model=none,multidevs=remap" \
  -virtfs "local,path=$repo,mount_tag=repo,security_model=none,readonly=on,multidevs=remap" \
  -netdev user,id=n0 -device virtio-net-pci,netdev=n0,romfile= </dev/null 2>&1 |
  sed -u -e 's/\r$//' -e 's/\x1b\[[0-9;?]*[a-zA-Z]//g' -e 's/\x1bc//g' | tee "$work/console.log" || status=$?
if [ ! -f "$work/exit-code" ]; then
  echo "test-cgroup2: FAIL: the guest ended without the suite's result (qemu status $status) after $(($(date +%s) - t1)) s" >&2
  exit 1
fi
code=$(cat "$work/exit-code")
echo "test-cgroup2: guest ran for $(($(date +%s) - t1)) s in all; $(grep -o 'guest: booted in [0-9.]* s' "$work/console.log" || true); $(grep -o 'guest: suite took [0-9]* s' "$work/console.log" || true)" >&2
if [ "$code" != 0 ]; then
  echo "test-cgroup2: FAIL (the guest's suite exited $code)" >&2
  exit 1
fi
echo "test-cgroup2: PASS" >&2
