#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# pam_namespace_check on configuration files in a temporary directory, with
# no sandbox: diagnostics and exit status, --config-dir/--config/--confdir,
# the plan for a user and what it finds on disk, JSON that json.tool
# accepts. The files must be root-owned to pass the trust checks, so this
# needs root; otherwise it is skipped (77).
set -euo pipefail
check=${NS_CHECK:?NS_CHECK names the built pam_namespace_check}

if [[ $(id -u) -ne 0 ]]; then
	echo "# not root: the configuration files would not be root-owned"
	exit 77
fi
if ! getent passwd nobody >/dev/null; then
	echo "# no user nobody"
	exit 77
fi

umask 022
dir=$(mktemp -d -p /tmp ns-check.XXXXXX)
trap 'rm -rf "$dir"' EXIT
chmod 0755 "$dir"
mkdir "$dir/namespace.d" "$dir/poly"
conf=$dir/namespace.conf

fail() {
	echo "FAIL: $*" >&2
	exit 1
}
note() {
	echo "# $*"
}
# run EXPECTED_STATUS ARGS...: sets $out (stdout) and $err (stderr)
run() {
	local want=$1 rc=0
	shift
	out=$("$check" "$@" 2>"$dir/stderr") || rc=$?
	err=$(<"$dir/stderr")
	[[ $rc -eq $want ]] || fail "$check $*: exit status $rc, wanted $want; stderr: $err"
}
has() {
	[[ $1 == *"$2"* ]] || fail "wanted \"$2\" in: $1"
}
json() {
	python3 -m json.tool <<<"$out" >/dev/null || fail "not JSON: $out"
	python3 -c "import json, sys; d = json.loads(sys.argv[1]); $1" "$out" ||
		fail "JSON check failed: $1 on $out"
}

note "a good file"
printf '%s/poly %s/inst/ user root\n' "$dir" "$dir" >"$conf"
run 0 --config-dir "$dir"
has "$out" "configuration OK: 1 entry"

note "a bad second line: FILE:LINE:COLUMN, exit 1"
printf '%s/poly %s/inst/ user root\n/var/tmp /var/tmp/i/ frob\n' "$dir" "$dir" >"$conf"
run 1 --config-dir "$dir"
has "$err" "$conf:2:22: error: unknown method \"frob\""
run 1 --config "$conf" --confdir "$dir/namespace.d"
has "$err" "$conf:2:22: error:"

note "--ignore-config-error still reports the line and exits 1"
run 1 --config-dir "$dir" --ignore-config-error --user nobody
has "$err" "$conf:2:22: error:"
has "$out" "instance:        $dir/inst/nobody"

note "--user: the instance path, the parent to be made, the init script"
printf '%s/poly %s/inst/ user root\n' "$dir" "$dir" >"$conf"
chmod 1777 "$dir/poly"
run 0 --config-dir "$dir" --user nobody
has "$out" "$conf:1: $dir/poly"
has "$out" "instance:        $dir/inst/nobody"
has "$out" "instance parent: $dir/inst (missing: would be created, owner root, mode 0000)"
has "$out" "instance state:  would be created, owner root, group root, mode 1777"
has "$out" "init script:     none"
run 0 --config-dir "$dir" --user root
has "$out" "root: no polyinstantiated directory"
run 0 --config-dir "$dir" --user nobody --gen-hash
has "$out" "instance:        $dir/inst/$(printf nobody | md5sum | cut -c1-32)"

note "--config-dir runs DIR/namespace.init, and checks it as the module does"
printf '#!/bin/sh\nexit 0\n' >"$dir/namespace.init"
chmod 0644 "$dir/namespace.init"
run 1 --config-dir "$dir" --user nobody
has "$out" "init script:     $dir/namespace.init (NOT EXECUTABLE"
has "$err" "$conf:1: error: init script $dir/namespace.init is not executable"
chmod 0775 "$dir/namespace.init"
run 1 --config-dir "$dir" --user nobody
has "$err" "must be a regular file owned by root and not writable by group or others"
chmod 0755 "$dir/namespace.init"
run 0 --config-dir "$dir" --user nobody
has "$out" "init script:     $dir/namespace.init (runs as root"
rm "$dir/namespace.init"

note "--json parses, with the plan and the diagnostics"
run 0 --config-dir "$dir" --user nobody --json
json "assert d['ok'] is True and d['user'] == 'nobody' and d['diagnostics'] == []
e = d['entries']; assert len(e) == 1 and e[0]['instance'] == '$dir/inst/nobody', e
assert e[0]['line'] == 1 and e[0]['method'] == 'user' and e[0]['would_fail'] is False, e"
printf '%s/poly %s/in\\"st\\t\xff/ bogus\n' "$dir" "$dir" >"$conf"
run 1 --config-dir "$dir" --json
json "assert d['ok'] is False and d['entries'] == []
g = d['diagnostics'][0]; assert g['severity'] == 'error' and g['line'] == 1 and g['column'] > 0, g"
printf '%s/poly %s/in\\"st\\t\xff/ user\n' "$dir" "$dir" >"$conf"
run 0 --config-dir "$dir" --json --user nobody
json "assert d['entries'][0]['instance'] == '$dir/in\"st\t\ufffd/nobody', d"

note "what is on disk: a wrong instance parent, a missing polydir, create"
printf '%s/poly %s/inst/ user\n' "$dir" "$dir" >"$conf"
mkdir -m 0755 "$dir/inst"
run 1 --config-dir "$dir" --user nobody
has "$err" "$conf:1: error: instance parent $dir/inst: owner root, group root, mode 0755; it must be owned by root with mode 000"
run 0 --config-dir "$dir" --user nobody --ignore-instance-parent-mode
has "$out" "accepted: ignore_instance_parent_mode"
chmod 000 "$dir/inst"
mkdir "$dir/inst/nobody"
run 0 --config-dir "$dir" --user nobody
has "$out" "instance state:  exists, reused: owner root, group root, mode 0755"
printf '%s/gone %s/inst/ user\n%s/made %s/inst/ user:create=0750,nobody\n' \
	"$dir" "$dir" "$dir" "$dir" >"$conf"
run 1 --config-dir "$dir" --user nobody
has "$err" "$conf:1: error: polydir $dir/gone does not exist and the line has no create flag"
has "$out" "polydir:         missing: would be created, owner nobody, group $(id -gn nobody), mode 0750"
ln -s poly "$dir/link"
printf '%s/link %s/inst/ user\n' "$dir" "$dir" >"$conf"
run 1 --config-dir "$dir" --user nobody
has "$err" "polydir $dir/link is a symbolic link"

note "unprivileged: what may not be seen is a warning"
if command -v setpriv >/dev/null; then
	printf '%s/poly %s/inst/ user\n' "$dir" "$dir" >"$conf"
	rc=0
	err=$(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
		"$check" --config-dir "$dir" --user nobody 2>&1 >/dev/null) || rc=$?
	[[ $rc -eq 0 ]] || fail "unprivileged check: status $rc: $err"
	has "$err" "warning: cannot examine instance $dir/inst/nobody"
fi

note "namespace.d, trust checks, users, usage"
printf '%s/poly %s/inst/ user\n' "$dir" "$dir" >"$conf"
printf '/opt /opt/i/ nosuch\n' >"$dir/namespace.d/10-x.conf"
run 1 --config-dir "$dir"
has "$err" "$dir/namespace.d/10-x.conf:1:14: error: unknown method \"nosuch\""
rm "$dir/namespace.d/10-x.conf"
chmod 0664 "$conf"
run 1 --config-dir "$dir"
has "$err" "$conf: error: refusing"
chmod 0644 "$conf"
run 1 --config "$dir/none.conf"
has "$err" "$dir/none.conf: error: no configuration"
run 1 --config-dir "$dir" --user ns-no-such-user
has "$err" "unknown user ns-no-such-user"
run 1 --config-dir "$dir" --user ../etc
has "$err" "refusing user name"
run 2 --config-dir "$dir" --config "$conf"
run 2 --config-dir relative/dir
run 2 extra-argument
note "mistakes that change who gets a private directory: a hint for each"
printf '%s/poly %s/inst/ usr root\n' "$dir" "$dir" >"$conf"
run 1 --config-dir "$dir"
has "$err" "unknown method \"usr\" (did you mean user?); the methods are user, context, level, tmpdir, tmpfs"
printf '%s/poly %s/inst/ user:noinnit root\n' "$dir" "$dir" >"$conf"
run 0 --config-dir "$dir"
has "$err" "warning: unknown flag \"noinnit\", ignored (did you mean noinit?); the flags are create"
has "$out" "configuration OK"
note "--strict: a warning fails; -q: no OK line"
run 1 --config-dir "$dir" --strict
has "$err" "1 warning, a failure with --strict"
run 0 --config-dir "$dir" -q
[[ -z $out ]] || fail "-q printed: $out"
printf '%s/poly %s/inst/ user root\n' "$dir" "$dir" >"$conf"
run 0 --config-dir "$dir" --strict -q
[[ -z $out$err ]] || fail "--strict -q on a good file printed: $out$err"
note "a namespace.d file the module does not read"
touch "$dir/namespace.d/20-x" "$dir/namespace.d/20-x.conf.dpkg-old"
run 0 --config-dir "$dir"
has "$err" "$dir/namespace.d/20-x: warning: ignored: the module reads only the files of namespace.d named *.conf"
[[ $err != *dpkg-old* ]] || fail "a dpkg backup was warned about: $err"
run 1 --config-dir "$dir" --strict
rm "$dir/namespace.d/20-x" "$dir/namespace.d/20-x.conf.dpkg-old"
if getent group adm >/dev/null && ! getent passwd adm >/dev/null; then
	note "a group in a plain line's list: said, with the extended form"
	printf '%s/poly %s/inst/ user root,adm\n' "$dir" "$dir" >"$conf"
	run 0 --config-dir "$dir"
	has "$err" "\"adm\" in the list of users is a group, not a user: the module ignores it, so the line applies to the members of adm; for a group, write the line in the extended form: \"$dir/poly $dir/inst/ user+ root,@adm\""
fi
note "ok"
