#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Boot older kernels from Debian's archive under qemu (software emulation)
# with an initramfs holding a static tract and the workload, and report per
# kernel the result line the guest writes.  Kernel packages are downloaded,
# never installed, and cached in OUT/kernels.
set -eu
OUT=${OUT:-build}
cache="$OUT/kernels"
mkdir -p "$cache"
fail=0
passed=0
failed=0

# the newest build of each kernel series Debian 12 ships: its own 6.1, and
# the 6.12 backport ("6.12.111+deb12") where the archive has it
kernel_packages() {
	for series in '6\.1' '6\.12'; do
		apt-cache search --names-only "^linux-image-${series}(\.[0-9]+)*(-[0-9]+|\+deb12)-amd64-unsigned\$" |
			awk '{ print $1 }' | sort -V | tail -n 1
	done
}

fetch() {
	(cd "$cache" && [ -n "$(ls "$1"_*.deb 2>/dev/null)" ] || apt-get download -q "$1" > /dev/null 2>&1)
	ls "$cache/$1"_*.deb | tail -n 1
}

# a fresh machine may have no package lists yet
[ -n "$(apt-cache search --names-only '^busybox-static$')" ] || apt-get update -qq
command -v qemu-system-x86_64 > /dev/null || {
	echo "test-kernels: installing qemu-system-x86"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends qemu-system-x86 > /dev/null
}
packages=$(kernel_packages)
if [ -z "$packages" ]; then
	echo "test-kernels: no Debian 6.1 or 6.12 kernel package in the archive; nothing to boot"
	exit 0
fi

# the guest's user space: busybox, and tract and the workload linked statically
root="$cache/root"
rm -rf "$root"
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/tmp" "$root/dev"
dpkg-deb -x "$(fetch busybox-static)" "$cache/busybox"
cp "$cache/busybox/bin/busybox" "$root/bin/"
for applet in sh mount ip sleep cat grep sed ls uname poweroff; do
	ln -sf busybox "$root/bin/$applet"
done
libs=""
for layer in record top output query store base; do libs="$libs $OUT/lib/lib$layer.a"; done
# shellcheck disable=SC2086
${CC:-cc} -static "$OUT"/obj/cmd/*.o $libs -lbpf -ldw -lelf -lz -llzma -lbz2 -lzstd -lsqlite3 -lncursesw -ltinfo -lm -lpthread -ldl \
	-o "$root/bin/tract" 2> "$cache/link.log" || { cat "$cache/link.log"; exit 1; }
${CC:-cc} -static -O1 -pthread tests/workload/workload.c -o "$root/bin/workload"
cp tests/kernels/guest-init "$root/init"
chmod 755 "$root/init"
(cd "$root" && find . | ../busybox/bin/busybox cpio -o -H newc 2> /dev/null) | gzip -1 > "$cache/initrd.gz"

for pkg in $packages; do
	dir="$cache/${pkg%-unsigned}"
	[ -d "$dir" ] || dpkg-deb -x "$(fetch "$pkg")" "$dir"
	vmlinuz=$(ls "$dir"/boot/vmlinuz-* | head -n 1)
	log="$dir.console"
	timeout 600 qemu-system-x86_64 -m 1024 -smp 2 -nographic -no-reboot -kernel "$vmlinuz" \
		-initrd "$cache/initrd.gz" -append "console=ttyS0 quiet panic=-1" > "$log" 2>&1 || true
	line=$(grep -a '^TRACT-KERNEL-RESULT' "$log" | tail -n 1 | tr -d '\r')
	if [ -z "$line" ]; then
		echo "not ok - $pkg: no result line from the guest (console in $log)"
		tail -n 20 "$log"
		fail=1
		failed=$((failed + 1))
		continue
	fi
	set -- $line
	if [ "$3" = pass ]; then
		kernel=$2
		shift 3
		echo "ok - kernel $kernel: $*"
		passed=$((passed + 1))
	else
		echo "not ok - kernel $2: $*"
		fail=1
		failed=$((failed + 1))
	fi
done
echo "kernels: $passed passed, $failed failed"
exit $fail
