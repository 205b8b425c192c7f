#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Boot older kernels from Debian's archive under qemu (software emulation)
# with an initramfs holding a static tract and the workload, and report per
# kernel the result line the guest writes: which kernel booted, which of the
# guest's checks failed with its figures, and the console's last lines.
# Kernel packages are downloaded, never installed, and cached in OUT/kernels;
# the newest build of each series in the archive is the one booted, as on a
# fresh machine, also where the cache holds an older one.
#
#   scripts/test-kernels.sh [--prepare | --boot]
# --prepare downloads the kernels and builds the guest's user space, and
# boots nothing (make test does it beside the integration tests); --boot
# boots what a --prepare left.  The guests boot at once, one CPU each.
set -u
mode=${1:-all}
case $mode in all | --prepare | --boot) ;; *) echo "usage: $0 [--prepare | --boot]" >&2; exit 2 ;; esac
OUT=${OUT:-build}
cache="$OUT/kernels"
mkdir -p "$cache"
passed=0
failed=0
# a guest gets this long to boot, record and power off; under emulation a
# boot takes 20-60 s and the guest's work about as long
GUEST_SECONDS=${GUEST_SECONDS:-600}

not_ok() {
	echo "not ok - $*"
	failed=$((failed + 1))
}

# Package lists older than a day may name kernels the archive has replaced
# (their downloads fail) and miss the newest: bring them up to date first.
lists_fresh() {
	[ -n "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mmin -1440 2> /dev/null | head -n 1)" ]
}
if ! lists_fresh; then
	echo "test-kernels: package lists are over a day old; apt-get update"
	apt-get update -qq > "$cache/apt-update.log" 2>&1 || { echo "test-kernels: apt-get update failed:"; tail -n 5 "$cache/apt-update.log"; }
fi

# the newest build of each kernel series Debian 12 ships: its own 6.1, and
# the 6.12 backport ("6.12.111+deb12") where the archive has it; KERNELS
# names fewer ("6.12")
kernel_packages() {
	for series in ${KERNELS:-6.1 6.12}; do
		series=$(echo "$series" | sed 's/\./\\./g')
		apt-cache search --names-only "^linux-image-${series}(\.[0-9]+)*(-[0-9]+|\+deb12)-amd64-unsigned\$" |
			awk '{ print $1 }' | sort -V | tail -n 1
	done
}

# fetch PACKAGE: the path of its .deb of the archive's version, downloaded
# once; on failure, one apt-get update and a second try, then the error
fetch() {
	version=$(apt-cache policy "$1" | sed -n 's/^  Candidate: //p')
	deb=$(ls "$cache/$1_$(echo "$version" | sed 's/:/%3a/')_"*.deb 2> /dev/null | head -n 1)
	if [ -z "$deb" ]; then
		if ! (cd "$cache" && apt-get download -q "$1" > "$1.download.log" 2>&1); then
			apt-get update -qq > /dev/null 2>&1
			(cd "$cache" && apt-get download -q "$1" > "$1.download.log" 2>&1) || {
				echo "download of $1 failed: $(tail -n 2 "$cache/$1.download.log" | tr '\n' ' ')" >&2
				return 1
			}
		fi
		deb=$(ls -t "$cache/$1"_*.deb | head -n 1)
	fi
	echo "$deb"
}

# older_cached PACKAGE DEB: a download of the same kernel series (6.1.,
# 6.12.) that is not DEB: one the archive has replaced since
older_cached() {
	series=$(echo "$1" | sed -E 's/^(linux-image-6\.[0-9]+)\..*/\1./')
	ls "$cache/$series"*.deb 2> /dev/null | grep -v -F "$2"
}

# console LOG LINES: the guest console's last LINES lines that say something:
# without the firmware's banners, the terminal's escape sequences and blank lines
console() {
	tr -d '\r' < "$1" | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g' |
		grep -a -v -e '^TRACT-KERNEL-RESULT' -e '^\s*$' -e '^SeaBIOS' -e '^iPXE' -e 'Press Ctrl-B' -e '^Booting from ROM' |
		tail -n "$2" | sed 's/^/    /'
}

command -v qemu-system-x86_64 > /dev/null || {
	echo "test-kernels: installing qemu-system-x86"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends qemu-system-x86 > "$cache/qemu-install.log" 2>&1 ||
		{ not_ok "qemu: cannot install qemu-system-x86: $(tail -n 3 "$cache/qemu-install.log" | tr '\n' ' ')"; exit 1; }
}
packages=$(kernel_packages)
if [ -z "$packages" ]; then
	echo "test-kernels: no Debian 6.1 or 6.12 kernel package in the archive; nothing to boot"
	exit 0
fi

# the guest's user space: busybox, and tract and the workload linked statically
build_guest() {
	root="$cache/root"
	rm -rf "$root"
	mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/tmp" "$root/dev"
	busybox_deb=$(fetch busybox-static) || { not_ok "busybox-static: no package to build the guest with"; exit 1; }
	dpkg-deb -x "$busybox_deb" "$cache/busybox"
	cp "$cache/busybox/bin/busybox" "$root/bin/"
	for applet in sh mount ip sleep cat grep sed ls uname poweroff wc awk tail; do
		ln -sf busybox "$root/bin/$applet"
	done
	libs=""
	for layer in record top output query fleet store base; do libs="$libs $OUT/lib/lib$layer.a"; done
	# no libcurl in a static binary: an HTTP client that finds no server (tests/kernels/no_http.c)
	${CC:-cc} -c -Isrc/fleet -Isrc/base -Iinclude tests/kernels/no_http.c -o "$cache/no_http.o"
	# shellcheck disable=SC2086
	${CC:-cc} -static "$OUT"/obj/cmd/*.o "$cache/no_http.o" $libs -lbpf -ldw -lelf -liberty -lz -llzma -lbz2 -lzstd -lsqlite3 -lncursesw -ltinfo -lm -lpthread -ldl \
		-o "$root/bin/tract" 2> "$cache/link.log" || { not_ok "static link of tract: $(tail -n 5 "$cache/link.log")"; exit 1; }
	${CC:-cc} -static -O1 -pthread tests/workload/workload.c -o "$root/bin/workload" || { not_ok "static link of the workload"; exit 1; }
	# threads that publish OpenTelemetry thread contexts (static-pie keeps the symbol in .dynsym)
	${CC:-cc} -static-pie -fPIE -O1 -pthread -Iinclude tests/otel/otel_threads.c tests/otel/otel_lib.c \
		-Wl,--export-dynamic-symbol=otel_thread_ctx_v1 -o "$root/bin/otel" || { not_ok "static link of the trace-context threads"; exit 1; }
	cp tests/kernels/guest-init "$root/init"
	chmod 755 "$root/init"
	(cd "$root" && find . | ../busybox/bin/busybox cpio -o -H newc 2> /dev/null) | gzip -1 > "$cache/initrd.gz.new" &&
		mv "$cache/initrd.gz.new" "$cache/initrd.gz"
}
if [ "$mode" = --boot ]; then
	[ -s "$cache/initrd.gz" ] || { not_ok "no guest to boot: scripts/test-kernels.sh --prepare makes it"; exit 1; }
else
	rm -f "$cache/initrd.gz"
	build_guest
fi

# unpacked PKG: the folder its newest build is unpacked in (downloaded and
# unpacked once; a build the archive has replaced is deleted)
unpacked() {
	deb=$(fetch "$1" 2> "$cache/fetch.err") || { cat "$cache/fetch.err"; return 1; }
	for old in $(older_cached "$1" "$(basename "$deb")"); do
		echo "test-kernels: the archive has moved on from $(basename "$old"); booting $(basename "$deb")" >&2
		rm -rf "$old" "${old%.deb}" "${old%.deb}.console"
	done
	dir="$cache/$(basename "$deb" .deb)"
	# only the kernel image: unpacking its modules too would take seconds of
	# CPU (a third of a gigabyte), and the image comes first in the package
	if [ ! -d "$dir" ]; then
		rm -rf "$dir.new"
		mkdir -p "$dir.new"
		dpkg-deb --fsys-tarfile "$deb" 2> /dev/null | tar -x -C "$dir.new" --wildcards --occurrence=1 './boot/vmlinuz-*'
		ls "$dir.new"/boot/vmlinuz-* > /dev/null 2>&1 && mv "$dir.new" "$dir" || { echo "cannot unpack the kernel image of $deb"; return 1; }
	fi
	echo "$dir"
}

# boot PKG DIR: its guest booted (twice at most), its report on standard
# output; exit 1 if it failed
boot() {
	pkg=$1
	dir=$2
	vmlinuz=$(ls "$dir"/boot/vmlinuz-* | head -n 1)
	log="$dir.console"
	echo "booting $(basename "$vmlinuz") under qemu (at most $GUEST_SECONDS s)"
	start=$(date +%s)
	# Without KVM the guest's CPUs are emulated, and patching kernel text
	# while the other CPU runs it (a static key, as the clocksource watchdog
	# or tract's attaching flips one) has crashed an emulated 6.12 guest on
	# an int3, at boot and later, and a 6.1 guest has hung once in a soft
	# lockup: a guest that ends with no result is booted once more, and says so.
	for attempt in 1 2; do
		# no standard input: -nographic would read the terminal's
		# one host thread runs both vCPUs (thread=single): with a thread each,
		# a vCPU may run code the other has just patched, stale
		timeout "$GUEST_SECONDS" qemu-system-x86_64 -accel tcg,thread=single -m 1024 -smp 2 -nographic -no-reboot -kernel "$vmlinuz" \
			-initrd "$cache/initrd.gz" -append "console=ttyS0 quiet panic=-1" < /dev/null > "$log" 2>&1
		qrc=$?
		line=$(grep -a '^TRACT-KERNEL-RESULT' "$log" | tail -n 1 | tr -d '\r')
		[ -n "$line" ] && break
		[ $attempt = 1 ] && { echo "# $pkg: no result line from the guest (qemu exited $qrc), booting it once more; the first boot's console: $log.1"
			grep -a -m 3 'Oops\|BUG\|RIP: 0010\|soft lockup' "$log" | sed 's/^/#   /'; cp "$log" "$log.1"; }
	done
	secs=$(($(date +%s) - start))
	if [ -z "$line" ]; then
		reason="qemu exited $qrc"
		[ "$qrc" -eq 124 ] && reason="no answer in $GUEST_SECONDS s"
		not_ok "$pkg: no result line from the guest, booted twice ($reason, after $secs s); its console ($log):"
		# a crash's first lines say what it was; then where the console ended
		grep -a -m 3 'Oops\|BUG\|RIP: 0010\|soft lockup\|panic' "$log" | tr -d '\r' | sed 's/^/    /'
		console "$log" 12
		return 1
	fi
	# shellcheck disable=SC2086
	set -- $line
	kernel=$2
	verdict=$3
	shift 3
	if [ "$verdict" = pass ]; then
		echo "ok - kernel $kernel in $secs s: $*"
		return 0
	fi
	not_ok "kernel $kernel: $* (after $secs s); the console's last lines ($log):"
	console "$log" 20
	return 1
}

# every kernel downloaded and unpacked first, then all booted at once: each
# guest is one host thread (thread=single), so two fill two CPUs; each
# one's report follows in the order the kernels were named
rm -f "$cache"/boot.*
n=0
for pkg in $packages; do
	n=$((n + 1))
	dir=$(unpacked "$pkg") || { not_ok "$pkg: $dir"; continue; }
	[ "$mode" = --prepare ] && continue
	(boot "$pkg" "$dir" > "$cache/boot.$n.out" 2>&1; echo $? > "$cache/boot.$n.rc") &
done
if [ "$mode" = --prepare ]; then
	echo "kernels: prepared $(echo $packages) and the guest's user space; $failed failed"
	[ "$failed" -eq 0 ]
	exit
fi
wait
i=0
for pkg in $packages; do
	i=$((i + 1))
	[ -f "$cache/boot.$i.rc" ] || continue
	cat "$cache/boot.$i.out"
	if [ "$(cat "$cache/boot.$i.rc")" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
	rm -f "$cache/boot.$i.out" "$cache/boot.$i.rc"
done
echo "kernels: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
