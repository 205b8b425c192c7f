#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make install honours PREFIX and DESTDIR and installs what the docs promise.
. "$(dirname "$0")/lib.sh"
plan 6
top=$(cd "$(dirname "$0")/../.." && pwd)
root="$WORK/root"

make -s -C "$top" install DESTDIR="$root" PREFIX=/opt/tract > "$WORK/install.log" 2>&1
ok "make install DESTDIR=... PREFIX=... succeeds" test $? -eq 0
ok "the binary lands under DESTDIR/PREFIX and runs" sh -c "'$root/opt/tract/bin/tract' version | grep -q '^tract '"
ok "the man page is installed" test -f "$root/opt/tract/share/man/man8/tract.8"
ok "bash completion is installed" test -f "$root/opt/tract/share/bash-completion/completions/tract"
ok "the systemd unit points at the installed binary" \
	grep -q "^ExecStart=/opt/tract/bin/tract record" "$root/opt/tract/lib/systemd/system/tract.service"
ok "nothing is installed outside DESTDIR" sh -c "! grep -q 'No such file' '$WORK/install.log' && [ ! -e /opt/tract/bin/tract ]"
done_testing
