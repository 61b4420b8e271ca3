#!/usr/bin/env bash
# The suite that scripts/cgroup2/run.sh runs inside its cgroup v2 guest, as
# root, from the guest's first process. Every check fails the suite; none
# skips. The host's root is read-only here: everything is written under
# /tmp (a tmpfs) or $BROADSIDE_WORK (shared with the host). The guest is
# emulated, so bots run many times slower than on the host: the matches
# are those whose bots start few processes.
set -uo pipefail
. "$BROADSIDE_WORK/env"
export BROADSIDE_TEST_REQUIRE_ALL=1
booted=$(cut -d' ' -f1 /proc/uptime)
echo "guest: booted in $booted s: $(uname -r), $(nproc) CPUs, $(stat -fc %T /sys/fs/cgroup) at /sys/fs/cgroup"
start=$(date +%s)
failures=0
fail() { echo "guest: FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "guest: ok: $*"; }
# step NAME: a heading with the time since the suite started.
step() { echo; echo "== $* ($(($(date +%s) - start)) s)"; }
# wanted PART: whether to run a part (probe, hostile, match, worker, user);
# CGROUP2_PARTS on the host picks some, for working on one of them.
wanted() { [ -z "${PARTS:-}" ] || [[ ",$PARTS," == *",$1,"* ]]; }

[ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ] || fail "/sys/fs/cgroup is not cgroup v2"
grep -q '^[1-9]' /proc/self/cgroup && fail "cgroup v1 hierarchies are mounted: $(cat /proc/self/cgroup)"

# A login session as systemd lays it out: the root and the slices hand
# memory and pids down, the shell shares its scope with other processes.
echo "+memory +pids +cpu" >/sys/fs/cgroup/cgroup.subtree_control
session=/sys/fs/cgroup/user.slice/user-0.slice/session-1.scope
mkdir -p $session
echo "+memory +pids +cpu" >/sys/fs/cgroup/user.slice/cgroup.subtree_control
echo "+memory +pids +cpu" >/sys/fs/cgroup/user.slice/user-0.slice/cgroup.subtree_control
echo $$ >$session/cgroup.procs
sleep 100000 &
bystander=$!

if wanted probe; then
step "the probe from a login session's shell (root, cgroup shared with others)"
out=$("$BIN/worker" probe 2>&1)
echo "$out"
echo "$out" | grep -q "enforced=true.*cgroups=v2" || fail "the probe does not print enforced=true ... cgroups=v2"
echo "$out" | grep -q "a cgroup v2 made for it under /sys/fs/cgroup/user.slice/user-0.slice" ||
  fail "the probe did not make its cgroup under the session's slice"
[ -z "$(ls -d /sys/fs/cgroup/user.slice/user-0.slice/broadside-run-* 2>/dev/null)" ] ||
  fail "the probe left its cgroup behind: $(ls -d /sys/fs/cgroup/user.slice/user-0.slice/broadside-run-*)"
grep -qx "0::/user.slice/user-0.slice/session-1.scope" /proc/$bystander/cgroup || fail "the probe moved another process"

# A container's cgroup namespace: the worker alone in it (a pod, a
# container whose entrypoint is the worker), then beside another process.
ns_probe() { # $1: cgroup, $2: "beside" to start a sleep beside the worker
  mkdir -p /sys/fs/cgroup/$1
  sh -c 'echo $$ >/sys/fs/cgroup/'"$1"'/cgroup.procs; [ "'"$2"'" = beside ] && { sleep 100000 >/dev/null 2>&1 & }
    exec unshare --cgroup --mount sh -c "umount /sys/fs/cgroup && mount -t cgroup2 cgroup2 /sys/fs/cgroup && exec '"$BIN"'/worker probe"' 2>&1
}
step "the probe as the only process of a container's cgroup namespace"
out=$(ns_probe pod.scope alone)
echo "$out"
echo "$out" | grep -q "its own cgroup v2, delegated by the host" || fail "the probe did not take its own cgroup"
echo "$out" | grep -q "enforced=true.*cgroups=v2" || fail "the probe alone in a cgroup namespace"
step "the probe in a container's cgroup namespace, beside another process"
out=$(ns_probe container.scope beside)
echo "$out"
echo "$out" | grep -q "enforced=true.*cgroups=v2" || fail "the probe beside another process in a cgroup namespace"
fi

# The hostile suites take most of the guest's time, one emulated CPU's
# worth; they run in the background, in three parts, while the parts below
# use the other CPU. Their results are reported at the end.
hostile_pids=()
if wanted hostile; then
step "the hostile suites start in the background"
mkdir -p /tmp/bin && cp "$BIN/sandbox.test" /tmp/bin/
# hostile NAME PATTERN: one part, logged to /tmp/hostile-NAME.log. Bots run
# several times slower here: their CPU and wall limits are stretched alike
# (testenv.Scaled), so that a bot that did not finish its probing in time
# does not read as a sandbox that stopped it.
hostile() {
  (cd "$REPO/internal/sandbox" && BROADSIDE_TEST_TIME_SCALE=8 /tmp/bin/sandbox.test -test.v -test.timeout 30m \
    -test.run "$2" >/tmp/hostile-$1.log 2>&1) &
  hostile_pids+=($!)
}
hostile fresh '^(TestProbe|TestHostileBots|TestVirtualenvInSandbox|TestBwrapCPULimitBackstop)$'
hostile session '^(TestHostileBotsSession|TestSessionLimitsOutsideTheSession|TestSessionMovesTurnFolder|TestSessionKeepsTurnFolderWatch|TestSessionTurnInTheLastTurnsTick)$'
# Mostly waiting: a sleeper's turn, then a starved loop's.
hostile cpuwait '^TestOwnCPUWait$'
fi

if wanted match; then
# A virtualenv whose interpreter leaves a mark in the folder it runs in,
# so the matches below show which python3 their bots ran.
venv=/tmp/match/venv
mkdir -p /tmp/match/bots
python3 -m venv --without-pip $venv || fail "python3 -m venv"
# A .pth file's import line runs at every start of the virtualenv's python
# (a sitecustomize.py would lose to Debian's own).
site=$($venv/bin/python3 -c 'import site; print(site.getsitepackages()[0])')
echo 'import os; open("ran-in-venv", "w").close()' >"$site/broadside-mark.pth"
cp -r "$REPO/bots/deepship-python3" "$REPO/bots/entelect-python3" "$BIN/entelect-go-reference" /tmp/match/bots/

step "battleship --sandbox from the shell, a virtualenv first on PATH: In Deep Ship's Python starters"
# Their entries start python3 by name (#!/usr/bin/env python3).
cd /tmp/match
out=$(PATH=$venv/bin:$PATH "$BIN/battleship" --sandbox --debug -b bots/deepship-python3 bots/deepship-python3 \
  --seed 3 --json -l /tmp/match/deepship 2>/tmp/match/deepship.err)
code=$?
echo "$out" | tail -n 1 | cut -c1-400
grep 'cgroups for the sandbox' /tmp/match/deepship.err
[ $code = 0 ] || { tail -n 20 /tmp/match/deepship.err; fail "battleship --sandbox exited $code"; }
echo "$out" | tail -n 1 | grep -q '"shotsFired":[1-9]' || fail "no shots in the summary"
echo "$out" | tail -n 1 | grep -q '"shotsFired":0' && fail "a player fired no shot"
[ -e bots/deepship-python3/ran-in-venv ] || fail "the bot did not run with the virtualenv's python3"
grep -q 'how="a cgroup v2 made for it under /sys/fs/cgroup/user.slice/user-0.slice"' /tmp/match/deepship.err ||
  fail "battleship did not make its own cgroup"

step "battleship --sandbox, a virtualenv first on PATH: Entelect's Python starter against the Go reference bot"
out=$(PATH=$venv/bin:$PATH "$BIN/battleship" --sandbox -b bots/entelect-python3 bots/entelect-go-reference \
  -s 1 --seed 3 --json -l /tmp/match/entelect 2>/tmp/match/entelect.err)
code=$?
echo "$out" | tail -n 1 | cut -c1-400
[ $code = 0 ] || { tail -n 20 /tmp/match/entelect.err; fail "battleship --sandbox exited $code"; }
echo "$out" | tail -n 1 | grep -q '"key":"A","name":"Python3 Starter","points":[0-9-]*,"shipsLeft":[0-9]*,"shotsFired":[1-9]' ||
  fail "the Python starter fired no shot"
# Logs name the interpreter without its path: the mark tells which ran.
[ -e bots/entelect-python3/ran-in-venv ] || fail "the Python starter did not run with the virtualenv's python3"
cd /
fi

if wanted worker; then
step "a worker from the shell plays ranked matches with SANDBOX=required"
export DATABASE_URL BLOB_URL=/tmp/blobs SANDBOX=required WORK_DIR=/tmp/worker LADDER_INTERVAL=2s \
  BATTLE_INTERVAL=1h LOG_LEVEL=info WORKER_HEARTBEAT=5s
mkdir -p /tmp/blobs /tmp/worker /tmp/house
# The ladder never pairs two bots of one owner: a house bot, and a
# contestant's upload through the portal's API with a token of theirs.
cp -r "$REPO/bots/deepship-python3" /tmp/house/deepship-house
"$BIN/portal" migrate >/dev/null || fail "portal migrate"
"$BIN/portal" seed-house-bots /tmp/house 2>&1 | grep -v level= || fail "portal seed-house-bots"
ADDR=127.0.0.1:8080 "$BIN/portal" >/tmp/portal.log 2>&1 &
portal=$!
psql "$DATABASE_URL" -qAtc "WITH u AS (INSERT INTO users (username, password_hash) VALUES ('guest', '-') RETURNING id)
  INSERT INTO api_tokens (user_id, name, token_hash) SELECT id, 'guest', sha256('bs_guest-token') FROM u" || fail "make a contestant"
(cd "$REPO/bots/deepship-python3" && zip -qr /tmp/guest.zip .)
for i in $(seq 60); do curl -fsS http://127.0.0.1:8080/healthz >/dev/null 2>&1 && break; sleep 1; done
curl -fsS -H "Authorization: Bearer bs_guest-token" -F zip=@/tmp/guest.zip -F name=guest-deepship \
  http://127.0.0.1:8080/api/bots || fail "upload through the API"
echo
"$BIN/worker" >/tmp/worker.log 2>&1 &
worker=$!
deadline=$(($(date +%s) + ${CGROUP2_WORKER_WAIT:-600}))
ranked=0
# Ranked matches are played in seat-swapped pairs and rated once both
# halves are in: wait for the ratings, not for the first half.
while [ "$(date +%s)" -lt $deadline ] && kill -0 $worker 2>/dev/null; do
  ranked=$(psql "$DATABASE_URL" -Atc "SELECT count(*) FROM matches WHERE ranked AND status = 'finished'" 2>/dev/null || echo 0)
  rated=$(psql "$DATABASE_URL" -Atc "SELECT count(*) FROM rating_events" 2>/dev/null || echo 0)
  [ "${rated:-0}" -ge 2 ] && break
  sleep 3
done
grep -E 'cgroups for the sandbox|sandbox probe' /tmp/worker.log | cut -c1-400
psql "$DATABASE_URL" -Atc "SELECT id, game, kind, status, rounds, error FROM matches ORDER BY id" 2>&1 | head
if [ "${ranked:-0}" -ge 1 ]; then
  pass "$ranked ranked match(es) played and recorded"
  n=$(psql "$DATABASE_URL" -Atc "SELECT count(*) FROM rating_events" 2>/dev/null)
  [ "${n:-0}" -ge 2 ] || fail "no rating events for the ranked match"
else
  tail -n 40 /tmp/worker.log
  fail "no ranked match finished"
fi
grep -q 'cgroups=v2' /tmp/worker.log || fail "the worker's probe does not say cgroups=v2"
kill -TERM $worker $portal 2>/dev/null
wait $worker $portal
fi

wanted user && . "$REPO/scripts/cgroup2/user-systemd.sh"

if [ ${#hostile_pids[@]} -gt 0 ]; then
  step "the hostile suites' results"
  wait "${hostile_pids[@]}"
  for part in fresh session cpuwait; do
    log=/tmp/hostile-$part.log
    grep -E '^(=== RUN|\s*--- |ok|FAIL|PASS|panic)|cgroups=' $log
    if ! grep -q '^PASS$' $log; then
      grep -v -E '^=== |^\s*--- PASS|result: exit' $log | cut -c1-400 | head -200
      fail "the sandbox tests ($part)"
    fi
  done
fi

kill $bystander 2>/dev/null
echo
echo "guest: suite took $(($(date +%s) - start)) s, $failures failure(s)"
[ $failures = 0 ]
