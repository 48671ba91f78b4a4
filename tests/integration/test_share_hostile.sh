#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# share_namespace against users who play with what pam_namespace_check
# reads and waits for (issue 27), each attack made as the user where a user
# can make it:
# - a mount in alice's shared namespace whose source and mount point she
#   names (a FUSE file system names its own source): quotes, backslashes,
#   newlines, bytes that are not UTF-8, and a mountinfo line far past 4096
#   bytes. --shared --json must parse to exactly the mounts there are, each
#   string as the kernel has it; the text listing must not gain lines.
# - alice stops her own su (SIGSTOP) while it holds her lock: --drop, and
#   the user@.service drop-in's command, come back within their bound.
# - a user literally named "2001": --drop 2001 is uid 2001's pins.
# - pam_namespace_check's share commands run by alice: a clear refusal.
# - quota=18446744073709551615 (2^64 - 1 bytes): refused, never no limit.
# shellcheck disable=SC2016 # session commands are single-quoted on purpose
set -euo pipefail
# One CPU, as test_share.sh says why (namespace ids and pin binds).
if [[ -z "${SB_INSIDE:-}" && -z "${NS_SHARE_PINNED_CPU:-}" ]] && command -v taskset >/dev/null; then
	export NS_SHARE_PINNED_CPU=1
	exec taskset -c 0 bash "$0" "$@"
fi
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/sandbox.sh
. "$here/../lib/sandbox.sh"
sandbox_enter "$@"

module_is_linux_pam && skip "share_namespace is this module's; Linux-PAM's has none"
[[ -x "${NS_CHECK:-}" ]] || fail "no pam_namespace_check (set NS_CHECK)"
alice=2001

sandbox_pam_args share_namespace debug
sandbox_conf '/tmp tmpfs tmpfs root'
# shellcheck source=../lib/held.sh
. "$here/../lib/held.sh"

sb_note "hostile mount sources and mount points in alice's shared namespace"
hold h1 ns-driver alice 'true'
session=$(held_pid h1)
# A source that closes the JSON string and opens keys of its own, with a
# backslash, a tab, a newline, a byte that is not UTF-8 and a real é.
src1=$'x", "user": "root", "uid": 0, "forged": "\\" \t\nnext line\xffé'
# A mount point alice names in her /tmp, as a FUSE mount point would be.
dir1=$'/tmp/h "q" \\ \nnew'
# A source of 2000 escaped characters: its mountinfo line is over 8 KiB,
# and where a reader split it at 4096 bytes the rest reads as a mount of
# its own.
pad=$(printf '\\ %.0s' {1..1000})
src2="${pad} /tmp/forged rw - tmpfs forged rw"
dir2=/tmp/$(printf 'd%.0s' {1..200})/$(printf 'e%.0s' {1..200})
nsenter -t "$session" -m -- setpriv --reuid=alice --regid=alice --init-groups -- mkdir -p "$dir1" "$dir2"
nsenter -t "$session" -m -- mount -t tmpfs -o size=1m "$src1" "$dir1"
# mount(2): util-linux 2.39+ (Debian 13) mounts through fsconfig(2), which
# takes no source over 256 bytes.
nsenter -t "$session" -m -- env LIBMOUNT_FORCE_MOUNT2=always mount -t tmpfs -o size=1m "$src2" "$dir2"
longest=$(nsenter -t "$session" -m -- cat /proc/self/mountinfo | awk '{ if (length($0) > m) m = length($0) } END { print m }')
[[ $longest -gt 4096 ]] || fail "the longest mountinfo line is only $longest bytes"
sb_note "the longest mountinfo line in alice's namespace: $longest bytes"

# The module's own tmpfs on /tmp: "none" through the new mount API, the
# type's name through mount(2) (its fallback, as under valgrind).
tmpsrc=$(nsenter -t "$session" -m -- awk '$5 == "/tmp" { for (i = 7; $i != "-"; i++); s = $(i + 2) } END { print s }' /proc/self/mountinfo)
json=$("$NS_CHECK" --shared --json)
TMPSRC=$tmpsrc SRC1=$src1 DIR1=$dir1 SRC2=$src2 DIR2=$dir2 python3 -c '
import json, os, sys
raw = sys.stdin.buffer.read()
d = json.loads(raw.decode("utf-8"))       # strict: valid UTF-8, one document
assert list(d) == ["shared"], d.keys()
(p,) = d["shared"]
assert set(p) == {"user", "uid", "key", "sessions", "stale", "pin", "mounts"}, p.keys()
assert p["user"] == "alice" and p["uid"] == 2001 and p["sessions"] == 1, p
for m in p["mounts"]:
    assert set(m) == {"target", "fstype", "source"}, m
want = [("/tmp", os.environ["TMPSRC"]),
        (os.environ["DIR1"], os.environb[b"SRC1"].decode("utf-8", "replace")),
        (os.environ["DIR2"], os.environ["SRC2"])]
got = [(m["target"], m["source"]) for m in p["mounts"]]
assert got == want, (got, want)
assert all(m["fstype"] == "tmpfs" for m in p["mounts"]), p["mounts"]
' <<<"$json" || fail "--shared --json with hostile sources: $json"

text=$("$NS_CHECK" --shared)
assert_eq 4 "$(wc -l <<<"$text")" "lines of --shared (one pin, three mounts): $text"
assert_contains "$text" "alice (uid 2001)" "--shared"
assert_contains "$text" '    /tmp/h\040"q"\040\134\040\012new tmpfs x",\040"user":' "--shared: the first hostile mount, escaped"
assert_contains "$text" "\\134\\040\\134\\040" "--shared: the long source, escaped"
assert_eq 0 "$(grep -c "^    /tmp/forged" <<<"$text")" "--shared: a mount made of the long line's tail"
release h1

sb_note "alice stops her own su while it holds her lock: --drop comes back within its bound"
# alice knows her own password: su to herself needs none here.
for f in su su-l; do
	sed -i '1i auth     sufficient pam_succeed_if.so quiet user = alice ruser = alice' \
		"$SB_DIR/etc/pam.d/$f"
done
# The init script holds the session open (under alice's lock) while told to.
cat >/etc/security/namespace.init <<EOF
#!/bin/sh
if [ -e $sig/init.hold ]; then
	echo \$PPID >$sig/init.pid && mv $sig/init.pid $sig/init.up
	i=0
	while [ ! -e $sig/init.go ] && [ \$i -lt 600 ]; do sleep 0.05; i=\$((i + 1)); done
fi
exit 0
EOF
chmod 0755 /etc/security/namespace.init
# A pin for --drop to find: a session under another configuration (key).
hold s1 ns-driver alice 'true'
sandbox_conf '/tmp tmpfs tmpfs:mntopts=size=2m root'
: >"$sig/init.hold"
if [[ -n "${NS_ASAN_RT:-}" ]]; then
	# su is set-user-ID: run by alice it ignores LD_PRELOAD and cannot load
	# the ASan-built module. The lock is held the same way by a driver session.
	sb_note "(sanitizer run: root stops a PAM driver session of alice's instead of her su)"
	sandbox_driver ns-driver alice -- echo su-done >"$SB_OUT/su.out" 2>&1 &
	stopper=()
else
	setpriv --reuid=alice --regid=alice --init-groups -- su - alice -c "echo su-done" \
		>"$SB_OUT/su.out" 2>&1 &
	stopper=(as_alice)
fi
client_pid=$!
sandbox_wait_for "$sig/init.up" 20
# the process that holds the lock: the one that runs the init script
su_pid=$(cat "$sig/init.up")
"${stopper[@]}" kill -STOP "$su_pid" || fail "alice cannot stop her own su"
: >"$sig/init.go"
sleep 0.3
[[ $(ps -o stat= -p "$su_pid") == T* ]] || fail "su is not stopped: $(ps -o stat= -p "$su_pid")"
rc=0
t0=$(now_ms)
out=$(timeout -k 5 60 "$NS_CHECK" --drop alice --timeout 2 2>&1) || rc=$?
elapsed=$(($(now_ms) - t0))
sb_note "--drop alice --timeout 2 returned after $elapsed ms with status $rc"
assert_eq 1 "$rc" "--drop while the lock is held: $out"
[[ $elapsed -ge 1900 && $elapsed -lt 5000 ]] || fail "--drop --timeout 2 took $elapsed ms"
assert_contains "$out" "$PIN/$alice/lock still held after 2000 ms" "--drop's message"
assert_eq 1 "$(pins "$alice")" "s1's pin, which --drop could not lock (the stopped su pins only later)"

# The drop-in's command, as systemd would run it for user@2001.service.
dropin=$(sed -n 's/^ExecStopPost=-+@sbindir@\/pam_namespace_check //p' \
	"$SB_SOURCE_ROOT/conf/user@.service.d-pam_namespace.conf")
[[ -n "$dropin" ]] || fail "no ExecStopPost line in conf/user@.service.d-pam_namespace.conf"
read -r -a args <<<"${dropin//%i/$alice}"
rc=0
t0=$(now_ms)
out=$(timeout -k 5 100 "$NS_CHECK" "${args[@]}" 2>&1) || rc=$?
elapsed=$(($(now_ms) - t0))
sb_note "the drop-in's pam_namespace_check ${args[*]} returned after $elapsed ms with status $rc"
assert_eq 1 "$rc" "the drop-in's command while the lock is held: $out"
[[ $elapsed -lt 15000 ]] || fail "the drop-in's command took $elapsed ms"
assert_contains "$out" "still held" "the drop-in's command"

"${stopper[@]}" kill -CONT "$su_pid"
wait "$client_pid" || fail "alice's su after SIGCONT: $(cat "$SB_OUT/su.out")"
assert_contains "$(cat "$SB_OUT/su.out")" su-done "alice's su once continued"
rm -f "$sig"/init.*
release s1
assert_eq 0 "$(pins "$alice")" "alice's pins once her sessions closed"
sandbox_conf '/tmp tmpfs tmpfs root'
for f in su su-l; do
	sed -i '/pam_succeed_if.so quiet user = alice ruser = alice/d' "$SB_DIR/etc/pam.d/$f"
done

sb_note "a user named \"2001\": --drop 2001 means uid 2001"
printf '2001:x:2004:2004::/home/carol:/bin/sh\n' >>"$SB_DIR/etc/passwd"
hold n1 ns-driver alice 'true'
# SIGKILL the session's PAM client (valgrind's process under --setup
# valgrind, whose log then ends without a summary and goes), then its command
body=$(held_pid n1)
client=$(ps -o ppid= -p "$body" | tr -d ' ')
kill -KILL "$client" "$body"
var=pid_n1
wait "${!var}" 2>/dev/null || true
if [[ -n "${NS_DRIVER_VALGRIND:-}" ]]; then
	rm -f "$NS_DRIVER_VALGRIND"/vg.*."$client"
fi
assert_eq 1 "$(pins "$alice")" "alice's stale pin"
out=$("$NS_CHECK" --drop 2001) || fail "--drop 2001: $out"
assert_contains "$out" "dropped $PIN/$alice/" "--drop 2001"
assert_eq 0 "$(pins "$alice")" "uid 2001's pin after --drop 2001"
rc=0
out=$("$NS_CHECK" --drop 4294967295 2>&1) || rc=$?
assert_eq 1 "$rc" "--drop 4294967295: $out"
assert_contains "$out" "not a uid" "--drop 4294967295"

sb_note "the share commands run by alice: refused, saying why"
hold r1 ns-driver alice 'true'
for cmd in "--shared" "--shared --json" "--drop alice" "--drop alice --force" "--enter alice -- true"; do
	rc=0
	# shellcheck disable=SC2086 # the command's words
	out=$(as_alice "$NS_CHECK" $cmd 2>&1) || rc=$?
	assert_eq 1 "$rc" "alice running pam_namespace_check $cmd: $out"
	assert_contains "$out" "needs root: $PIN is root's alone" "alice running $cmd"
	assert_not_contains "$out" "Bad file descriptor" "alice running $cmd"
done
assert_eq 1 "$(pins "$alice")" "alice's pin after her own --drop --force"
release r1

sb_note "quota=18446744073709551615: the session is refused, not given no limit"
if mount -t tmpfs -o mode=0755,size=8M,usrquota ns-test-quota /srv 2>/dev/null; then
	sb_note "(this kernel keeps tmpfs quotas)"
else
	mount -t tmpfs -o mode=0755,size=8M ns-test-quota /srv
fi
sandbox_inst_parent /srv/inst
sandbox_pam_args debug
sandbox_conf '/tmp  /srv/inst/  user+:quota=18446744073709551615  root'
sandbox_refused alice "refusing quota= for /srv/inst/alice: Numerical result out of range" "quota=2^64-1"
sandbox_conf '/tmp  /srv/inst/  user+:quota=1M,18446744073709551615  root'
sandbox_refused alice "refusing quota= for /srv/inst/alice: Numerical result out of range" "an inode limit of 2^64-1"
umount /srv
echo "ok: share_hostile"
