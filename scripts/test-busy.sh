#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make test-busy: the integration tests beside a busy loop at normal
# priority on one CPU, as a noisy neighbour or a forgotten process would
# be.  Every timing-sensitive test must hold here too; run it before a
# change to one lands.
set -u
cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}
taskset -c 0 sh -c 'while :; do :; done' &
busy=$!
trap 'kill $busy 2> /dev/null' EXIT
trap 'exit 130' INT TERM
echo "== test-busy: a busy loop (pid $busy) keeps CPU 0 busy while the integration tests run"
CI_LOGS=${OUT:-build}/ci-busy OUT=${OUT:-build} ./scripts/test-suite.sh integration
