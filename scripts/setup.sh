#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks to run or test Broadside: the
# bot sandbox (bubblewrap), a PostgreSQL server, headless Chromium for the
# browser tests, and the bot toolchains. Safe to run again: it installs only
# what is missing. Without root (or apt) it lists what is missing instead.
set -euo pipefail

want=()
need() { command -v "$1" >/dev/null 2>&1 || want+=("$2"); }
need_file() { [ -e "$1" ] || want+=("$2"); }
need bwrap bubblewrap
need gcc gcc
need g++ g++
need make make
need cmake cmake
need zip zip
need unzip unzip
need node nodejs
need npm npm
need javac openjdk-17-jdk-headless
need mvn maven
need python3 python3
# The interpreters BrainJar bots name in run.sh (its template runs
# `coffee bot.coffee $1`). Debian 12 has no Python 2.7, and no registry
# this set-up reaches has one: where pyenv or the machine provides it,
# BrainJar's "python" is Python 2.7; elsewhere it is Python 3
# (docs/brainjar.md), and the tests that play Python 2 bots say so.
if ! command -v python2.7 >/dev/null 2>&1 && ! command -v python2 >/dev/null 2>&1; then
  echo "setup: no Python 2.7 on PATH: Python 2 bots cannot play here (docs/brainjar.md)" >&2
fi
need coffee coffeescript
need ruby ruby
need php php-cli
need perl perl
need cargo cargo
# C# bots: the runtime, the compiler and xbuild.
need mono mono-devel
need mcs mono-devel
need xbuild mono-xbuild
if [ "${1:-}" = "--test" ]; then
  need chromium chromium
  # make test-cgroup2 boots the Debian kernel with cgroup v1 disabled under
  # QEMU's emulation, its initramfs packed by cpio.
  need qemu-system-x86_64 qemu-system-x86
  need cpio cpio
  ls /boot/vmlinuz-* >/dev/null 2>&1 || want+=(linux-image-amd64)
  # The Maven build tests download from Debian's Maven repository
  # (/usr/share/maven-repo) instead of Maven Central: the plugins a jar
  # build and dependency:go-offline resolve.
  plugins=/usr/share/maven-repo/org/apache/maven/plugins
  need_file $plugins/maven-dependency-plugin/3.5.0 libmaven-dependency-plugin-java
  need_file $plugins/maven-compiler-plugin/3.1 libmaven-compiler-plugin-java
  need_file $plugins/maven-resources-plugin/2.6 libmaven-resources-plugin-java
  need_file $plugins/maven-jar-plugin/2.4 libmaven-jar-plugin-java
  need_file $plugins/maven-surefire-plugin/2.12.4 libsurefire-java
  need_file $plugins/maven-clean-plugin/2.5 libmaven-clean-plugin-java
  need_file $plugins/maven-install-plugin/2.4 libmaven-install-plugin-java
  need_file $plugins/maven-deploy-plugin/2.7 libmaven-deploy-plugin-java
  need_file $plugins/maven-site-plugin/3.12.1 libmaven-site-plugin-java
fi
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null 2>&1; then
  want+=(postgresql)
fi

# --- Packages ----------------------------------------------------------------
# apt runs in the background while the Go tools below compile: the one
# waits on the network and the disk, the other on the CPU, and together
# they take a fresh machine's set-up from about six minutes to about four.
apt_pid=
apt_log=
if [ ${#want[@]} -gt 0 ] && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "setup: installing ${want[*]}" >&2
  apt_log=$(mktemp)
  (
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq --no-install-recommends "${want[@]}"
  ) >"$apt_log" 2>&1 &
  apt_pid=$!
fi
# --------------------------------------------------------------------------

# --- S3 server for the tests ---------------------------------------------
# The blob-store tests run against a real S3-compatible server on loopback:
# versitygw, built from the Go module proxy into $(go env GOPATH)/bin, where
# the tests look for it (internal/testblob). It needs neither root nor apt.
if [ "${1:-}" = "--test" ] && ! command -v versitygw >/dev/null 2>&1 &&
  [ ! -x "$(go env GOPATH)/bin/versitygw" ]; then
  echo "setup: building versitygw (S3 server for the tests; several minutes)" >&2
  GOFLAGS= go install github.com/versity/versitygw/cmd/versitygw@v1.8.0
fi
# --------------------------------------------------------------------------

# --- Static checkers for `make vet` and `make vulncheck` -----------------------
# staticcheck and govulncheck, from the Go module proxy into
# $(go env GOPATH)/bin at pinned versions (scripts/vet.sh and
# scripts/vulncheck.sh run them). Each is built with the Go of go.mod's
# toolchain line: a checker built with an older Go cannot read a newer
# standard library.
if [ "${1:-}" = "--test" ]; then
  gobin=$(go env GOPATH)/bin
  toolchain=$(sed -n 's/^toolchain //p' go.mod)
  # checker BINARY VERSION-WORD PACKAGE@VERSION
  checker() {
    if ! "$gobin/$1" -version 2>/dev/null | grep -qF "$2" ||
      ! go version "$gobin/$1" 2>/dev/null | grep -q ": ${toolchain:-go}"; then
      echo "setup: installing $1 with ${toolchain:-the local Go}" >&2
      GOFLAGS= GOTOOLCHAIN=${toolchain:-local} go install "$3"
    fi
  }
  checker staticcheck '(0.8.2)' honnef.co/go/tools/cmd/staticcheck@v0.8.2
  checker govulncheck 'govulncheck@v1.9.0' golang.org/x/vuln/cmd/govulncheck@v1.9.0
fi
# --------------------------------------------------------------------------

if [ -n "$apt_pid" ]; then
  if ! wait "$apt_pid"; then
    cat "$apt_log" >&2
    rm -f "$apt_log"
    echo "setup: apt-get could not install ${want[*]}" >&2
    exit 1
  fi
  rm -f "$apt_log"
elif [ ${#want[@]} -gt 0 ]; then
  echo "setup: please install these packages: ${want[*]}" >&2
  exit 1
fi
