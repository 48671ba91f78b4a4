# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
# Sourced by test_boot.sh for its autopkgtest mode (issue 35): the image is
# a testbed as autopkgtest's qemu runner would have it, the package
# installed and debian/tests/control's Depends in the root file system,
# plus the source tree in /root/src and root's ssh key; boot.py then runs
# debian/tests/integration there as root over ssh, with the command line
# autopkgtest uses (the test's path, from the source tree's top).

# The root file system's extra packages: debian/tests/control's Depends,
# with @builddeps@ as autopkgtest reads it (debian/control's Build-Depends
# and build-essential; debhelper-compat is debhelper's), names only.
autopkgtest_packages() {
	python3 - "$1" <<'PY'
import re
import sys

src = sys.argv[1]


def field(path, name):
    text = "\n".join(x for x in open(path).read().split("\n")
                     if not x.startswith("#"))
    m = re.search(r"^%s:(.*(?:\n[ \t].*)*)" % name, text, re.M)
    return m.group(1) if m else ""


names = ["build-essential"]
for item in (field(src + "/debian/control", "Build-Depends").split(",") +
             field(src + "/debian/tests/control", "Depends").split(",")):
    words = item.split()
    if not words or words[0].startswith("@"):
        continue
    name = {"debhelper-compat": "debhelper"}.get(words[0], words[0])
    if name not in names:
        names.append(name)
print(" ".join(names))
PY
}

# After dpkg -i: the source tree, root's key, the kernel, a 4 GB image
# (the compilers and Xvfb do not fit in 2), and the boot; does not return.
autopkgtest_image() {
	# shellcheck source=tests/boot/source_files.sh
	. "$here/source_files.sh"
	install -d -m 700 "$root/root/src" "$root/root/.ssh"
	(cd "$src" && source_files "$src" | tar --null -T - -cf -) | tar -C "$root/root/src" -xf -
	rm -f "$work/id_ed25519" "$work/id_ed25519.pub"
	ssh-keygen -q -t ed25519 -N '' -C boot-suite -f "$work/id_ed25519"
	install -m 600 "$work/id_ed25519.pub" "$root/root/.ssh/authorized_keys"
	echo "# the source tree in /root/src: $(find "$root/root/src" -type f | wc -l) files"
	# shellcheck disable=SC2012 # ls -v sorts the versions
	cp "$(ls -v "$root"/boot/vmlinuz-* | tail -n 1)" "$work/vmlinuz"
	# shellcheck disable=SC2012
	cp "$(ls -v "$root"/boot/initrd.img-* | tail -n 1)" "$work/initrd.img"
	mkfs.ext4 -q -F -L root -d "$root" "$img" 4G
	rm -rf "$root"
	echo "# image ready in $((SECONDS - start)) s: $img"
	NS_BOOT_RELEASE=$release exec python3 "$here/boot.py" "$work" autopkgtest
}
