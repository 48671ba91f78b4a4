# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# shellcheck shell=bash
#
# A real sshd inside the sandbox, for tests/integration/test_sshd.sh and
# test_once.sh. Sourced after sandbox.sh; the functions run inside the
# sandbox, in a network namespace of the test's own (the test re-executes
# itself under unshare --net first).
#
#   sshd_missing            prints what is missing to run sshd here (the
#                           programs of openssh-server, openssh-client,
#                           sshpass, openssl, iproute2), or nothing
#   sshd_set_passwords RE   gives the users whose names match the awk
#                           regular expression RE the password $PASSWORD
#   sshd_start [LINE...]    starts $NS_SSHD on 127.0.0.1:22 with a
#                           password-only configuration, plus LINEs
#   sshd_stop               stops it
#   ssh_password USER CMD   CMD in a password login of USER
#
# NS_SSHD names sshd (tests/run unpacks openssh-server into the build tree;
# default the system's). Its files and log ($SSH_DIR/sshd.log) are in
# SSH_DIR.

[[ -x "${NS_SSHD:-}" ]] || NS_SSHD=/usr/sbin/sshd
export NS_SSHD
SSH_DIR=$SB_DIR/ssh
SSH_TIMEOUT=${SSH_TIMEOUT:-$SB_TIMEOUT}
PASSWORD=Ns-test-pw-$RANDOM$RANDOM
SSHD_PID=
SSH_OPTS=(-F /dev/null -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null
	-o GlobalKnownHostsFile=/dev/null -o LogLevel=ERROR -o ConnectTimeout=10
	-o ServerAliveInterval=5 -o ServerAliveCountMax=2)

sshd_missing() {
	local prog
	for prog in "$NS_SSHD" ssh ssh-keygen sshpass openssl ip; do
		command -v "$prog" >/dev/null || {
			echo "$prog is not installed (openssh-server, openssh-client, sshpass, openssl, iproute2)"
			return 0
		}
	done
}

# The sandbox's copy of shadow is bind-mounted over /etc/shadow: written in
# place, never replaced by a rename.
sshd_set_passwords() {
	local hash new
	hash=$(openssl passwd -6 -stdin <<<"$PASSWORD")
	new=$(awk -F: -v OFS=: -v h="$hash" -v re="^($1)\$" '$1 ~ re { $2 = h } 1' /etc/shadow)
	printf '%s\n' "$new" >/etc/shadow
}

# shellcheck disable=SC2120 # the extra lines are optional
sshd_start() {
	local i line
	# sshd's privilege separation user, which openssh-server's installation
	# adds to the host; the sandbox's copy of passwd gets one if it is missing.
	getent passwd sshd >/dev/null ||
		printf 'sshd:x:2099:65534::/run/sshd:/usr/sbin/nologin\n' >>"$SB_DIR/etc/passwd"
	ip link set lo up
	install -d -m 0755 "$SSH_DIR" /run/sshd
	ssh-keygen -q -t ed25519 -N '' -f "$SSH_DIR/host_ed25519" </dev/null
	{
		printf '%s\n' "ListenAddress 127.0.0.1:22" "HostKey $SSH_DIR/host_ed25519" \
			"PidFile $SSH_DIR/sshd.pid" "UsePAM yes" "PasswordAuthentication yes" \
			"KbdInteractiveAuthentication no" "PrintMotd no" "PrintLastLog no" "UseDNS no"
		for line in "$@"; do
			printf '%s\n' "$line"
		done
	} >"$SSH_DIR/sshd_config"
	"$NS_SSHD" -t -f "$SSH_DIR/sshd_config" || fail "sshd -t rejects the test's configuration"
	# sshd loads the module: in the sanitizer run it takes NS_SU_ENV as su
	# does (the ASan runtime first, no leak checks in a program not ours).
	# shellcheck disable=SC2086 # NS_SU_ENV is a list of words
	env ${NS_SU_ENV:-} "$NS_SSHD" -D -e -f "$SSH_DIR/sshd_config" </dev/null \
		>"$SSH_DIR/sshd.log" 2>&1 &
	SSHD_PID=$!
	for ((i = 0; i < 100; i++)); do
		(exec 3<>/dev/tcp/127.0.0.1/22) 2>/dev/null && return 0
		kill -0 "$SSHD_PID" 2>/dev/null || fail "sshd exited: $(cat "$SSH_DIR/sshd.log")"
		sleep 0.05
	done
	fail "sshd does not listen on 127.0.0.1:22"
}

sshd_stop() {
	if [[ -n "$SSHD_PID" ]]; then
		kill "$SSHD_PID" 2>/dev/null || true
		wait "$SSHD_PID" 2>/dev/null || true
		SSHD_PID=
	fi
}

ssh_password() {
	timeout -k 5 "$SSH_TIMEOUT" sshpass -p "$PASSWORD" ssh "${SSH_OPTS[@]}" \
		-o PreferredAuthentications=password -o PubkeyAuthentication=no \
		"$1@127.0.0.1" "$2" </dev/null 2>&1
}
