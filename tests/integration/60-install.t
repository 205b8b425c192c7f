#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make install honours PREFIX and DESTDIR and installs what the docs promise.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
root="$WORK/root"

make -s -C "$top" install DESTDIR="$root" PREFIX=/opt/tract > "$WORK/install.log" 2>&1
ok "make install DESTDIR=... PREFIX=... succeeds" test $? -eq 0
test_expect_success 'the binary lands under DESTDIR/PREFIX and runs' '
	"$root/opt/tract/bin/tract" version > "$WORK/version" &&
	test_grep "^tract " "$WORK/version"
'
ok "the man page is installed" test -f "$root/opt/tract/share/man/man8/tract.8"
ok "and the thread-context header for services to publish with" test -f "$root/opt/tract/include/tract/otel_thread_ctx.h"
# a service's one file with the writer in it, as C99, C11 and C++, warnings as errors
printf '#define OTEL_THREAD_CTX_IMPLEMENTATION\n#include <tract/otel_thread_ctx.h>\nint main(void) { static const char *const k[] = { "http.route" }; return otel_thread_ctx_publish_process("svc", k, 1) || otel_thread_ctx_attach_hex("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", 1) || otel_thread_ctx_set_attr(0, "/a", 2); }\n' > "$WORK/svc.c"
test_expect_success 'the installed header builds as C99, C11 and C++ with -Wall -Wextra -Werror, and its writer runs' '
	for cc in "cc -std=c99 -pedantic -x c" "cc -std=c11 -x c" "c++ -std=c++11 -x c++"; do
		$cc -Wall -Wextra -Werror -I"$root/opt/tract/include" "$WORK/svc.c" -o "$WORK/svc" &&
		"$WORK/svc" || { echo "as $cc"; return 1; }
	done
'
ok "bash completion is installed" test -f "$root/opt/tract/share/bash-completion/completions/tract"
ok "the systemd unit points at the installed binary" \
	grep -q "^ExecStart=/opt/tract/bin/tract record" "$root/opt/tract/lib/systemd/system/tract.service"
test_expect_success 'nothing is installed outside DESTDIR' '
	test_grep ! "No such file" "$WORK/install.log" &&
	test_holds ! -e /opt/tract/bin/tract
'
done_testing
