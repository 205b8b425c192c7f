#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make deb builds a Debian package with Debian's tools, and what it installs runs.
. "$(dirname "$0")/../integration/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
arch=$(dpkg --print-architecture)
version=$(cat "$top/VERSION")
deb="$WORK/deb/deb/tract_${version}_$arch.deb"
# from a copy of the tree: dpkg-buildpackage cleans the tree it builds in
# (dh_clean walks it all), where make test's other steps build beside it
mkdir -p "$WORK/src/tract"
tar -C "$top" --exclude=./.git --exclude='./build*' --exclude=./debian/build -cf - . | tar -C "$WORK/src/tract" -xf -
make -C "$WORK/src/tract" --no-print-directory OUT="$WORK/deb" deb > "$WORK/make.out" 2>&1
rc=$?
# on failure the log's tail shows as diagnostics, and the whole log is kept
# (cleanup removes $WORK) where the diagnostics say
if ! ok "make deb builds tract_${version}_$arch.deb (make exits $rc)" test "$rc" -eq 0 -a -f "$deb"; then
	log=$(mktemp --suffix=.log "${TMPDIR:-/tmp}/tract-deb-make.XXXXXX")
	cp "$WORK/make.out" "$log"
	echo "# the build log is kept in $log; its last 40 lines:"
	tail -n 40 "$log" | sed 's/^/#   /'
fi
dpkg -x "$deb" "$WORK/root"
test_expect_success 'it holds the binary, man page, completion and systemd unit' '
	test_holds -x "$WORK/root/usr/bin/tract" &&
	test_holds -f "$WORK/root/usr/share/man/man8/tract.8.gz" &&
	test_holds -f "$WORK/root/usr/share/bash-completion/completions/tract" &&
	test_grep "^ExecStart=/usr/bin/tract record" "$WORK/root/usr/lib/systemd/system/tract.service"
'
test_expect_success 'the installed tract runs: tract --version' '
	"$WORK/root/usr/bin/tract" --version > "$WORK/version" &&
	test_grep -x "tract $version" "$WORK/version"
'
test_expect_success 'and depends on the libraries it links' '
	dpkg-deb -f "$deb" Depends > "$WORK/depends" &&
	test_grep libsqlite3 "$WORK/depends"
'
# its postinst, run where no tract user exists (stand-ins for getent and
# useradd record what it asks; those of systemd's helpers leave this machine alone)
dpkg-deb -e "$deb" "$WORK/control"
mkdir "$WORK/fakebin"
printf '#!/bin/sh\nexit 2\n' > "$WORK/fakebin/getent"
printf '#!/bin/sh\necho "$*" >> %s/useradd.args\n' "$WORK" > "$WORK/fakebin/useradd"
for helper in deb-systemd-helper deb-systemd-invoke systemctl; do printf '#!/bin/sh\nexit 0\n' > "$WORK/fakebin/$helper"; done
chmod +x "$WORK"/fakebin/*
PATH="$WORK/fakebin:$PATH" sh "$WORK/control/postinst" configure > /dev/null 2>&1
test_expect_success "installing it makes the recorder's own system user, without a shell or home" '
	test_grep -e "--system .*--no-create-home .*--shell /usr/sbin/nologin .* tract\$" "$WORK/useradd.args"
'
done_testing
