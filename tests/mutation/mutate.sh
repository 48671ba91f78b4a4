#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
#   bash tests/mutation/mutate.sh [SCRATCH] [MUTATION...]
#
# Mutation checks: each rule the tests exist for is broken, one at a time,
# in a copy of the tracked source in SCRATCH/src, and the tests named for it
# must then FAIL, each by an assertion of the project's helpers in its own
# output (a "FAIL: FILE.sh:LINE:" line, tests/lib/sandbox.sh's fail() or a
# test's own; not a timeout, a build or setup error, a crash of the test,
# nor another test's assertion). A mutant they pass is a
# test that cannot see what it exists for. The mutants are sed scripts run
# on that copy, never build options, so no shipped source or build of the
# real tree can carry one.
#
# The copy is built once (SCRATCH/build), and the named tests must pass on
# it first: a test that fails anyway catches nothing. Then each mutation is
# applied, the targets its suite needs are rebuilt (only what the changed
# file reaches), its tests run, and the file is put back.
#
#   descriptor rules of SECURITY.md: O_NOFOLLOW, RESOLVE_NO_SYMLINKS, the
#     instance opened by descriptor, the fsuid switch
#   trust rules of SECURITY.md's threat model, one mutant each: the
#     configuration files' owner, mode and type, their directories' owner
#     and mode, the limit on entries; the init script's owner, mode and
#     type, its directories, a symlink to it, its environment, descriptors
#     and time bound; user names that are paths; the instance parent's
#     owner and mode; the propagation of / made slave; the namespace a
#     threaded caller saves for a failed session; the share_namespace
#     pin directory, the pin's identity, pinning only from the init
#     namespace; the owner and mode of a share= directory. Two rules have
#     none, as no test can see them broken yet: the check that a new
#     instance is the directory just made (kn_mkdir_child), and tmpdir
#     removal not crossing a mount (the removal's descriptors and a mount
#     in the instance never meet in one namespace in a test so far)
#   bench: a session made to burn 300 us more CPU, and one made to sleep
#     1 ms (no CPU: the wall-time bound): bench_smoke's ratios against
#     Linux-PAM's module must fail each
#
# Exit 0 when every mutant was caught, 1 when one survived, 2 when a
# mutation no longer applies (the source it patches changed), a mutant did
# not build, or a named test fails or skips without a mutant.
set -euo pipefail
src=${NS_SOURCE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
scratch=${1:-$src/build-mutation}
shift || true

# name@the tests that must catch it, as SUITE/TEST@file (a glob: the one file
# the script changes)@sed -E script@what it breaks
mutations=(
	# the descriptor rules
	'nofollow@security/symlinks@kernel/path.c@s/ \| O_NOFOLLOW//g@no O_NOFOLLOW: links in user directories followed'
	'nosymlinks@security/race@kernel/path.c@s/KN_RESOLVE_NO_SYMLINKS \| //g@openat2 without RESOLVE_NO_SYMLINKS'
	'instfollow@security/symlinks@pam_namespace/apply/*.c@s/kn_open_child_dir\(pfd, e->instance_name\)/__extension__({ int m_ = openat(pfd, e->instance_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC); m_ < 0 ? -errno : m_; })/g@the instance opened with a plain openat, links followed'
	'nofsuid@security/symlinks@kernel/path.c@s/if \(st->st_uid == 0 \|\| geteuid\(\) != 0\)/if (true)/@no fsuid switch: user directories searched as root'
	# the configuration files (trusted only when root's and only root's)
	'cfgowner@security/hostile_input integration/config@pam_namespace/core/config*.c@s/if \(trust_checks && \(st\.st_uid != 0 \|\| /if (trust_checks \&\& (/@a configuration file not required to be root'"'"'s'
	'cfgmode@security/hostile_input integration/config@pam_namespace/core/config*.c@s/ \|\| \(st\.st_mode & \(S_IWGRP \| S_IWOTH\)\)\)\) \{/)) {/@a configuration file others may write accepted'
	'cfgregular@security/hostile_input@pam_namespace/core/config*.c@s/if \(!S_ISREG\(st\.st_mode\)\) \{/if (false) {/@a configuration file not required to be a regular file (a FIFO read as empty)'
	'cfgdirowner@security/config_trust integration/config@pam_namespace/core/config*.c@s/^(\t+if \()st\.st_uid != 0 \|\|$/\1/@configuration directories not required to be root'"'"'s'
	'cfgdirmode@security/hostile_input security/config_trust@pam_namespace/core/config*.c@s/\(\(st\.st_mode & \(S_IWGRP \| S_IWOTH\)\) && !\(st\.st_mode & S_ISVTX\)\)/false/@configuration directories others may write accepted'
	'cfglimit@security/hostile_input@pam_namespace/core/config*.c@s/if \(cfg->n_rules >= NS_CONFIG_MAX_ENTRIES\) \{/if (false) {/@no limit on the number of entries'
	# the init script
	'scriptowner@security/hostile_input@pam_namespace/*/*.c@s/if \(!S_ISREG\((st(\.|->))st_mode\) \|\| st(\.|->)st_uid != 0 \|\| \(st(\.|->)st_mode & \(S_IWGRP \| S_IWOTH\)\)\)/if (!S_ISREG(\1st_mode))/@an init script of any owner and mode run'
	'scriptdirs@security/hostile_input@kernel/path.c@s/return trusted && !S_ISLNK\(st\.st_mode\);/return !S_ISLNK(st.st_mode);/@an init script in a directory a user may write run'
	'scriptlink@security/hostile_input@kernel/path.c@s/if \(!trusted \|\| !S_ISLNK\(st\.st_mode\) \|\| st\.st_uid != 0\) \{/if (!S_ISLNK(st.st_mode)) {/@a user'"'"'s symlink to the init script followed'
	'initenv@security/environment@pam_namespace/*/*.c@s/char \*const envp\[\] = \{NULL\};/char *const *envp = environ;/@the init script given the caller'"'"'s environment'
	'initfds@security/environment@pam_namespace/apply/init-script.c@s/syscall\(SYS_close_range, [^)]*\) == 0/true/g@the init script given the caller'"'"'s descriptors'
	'scriptregular@security/hostile_input@pam_namespace/*/*.c@s/if \(!S_ISREG\((st(\.|->))st_mode\) \|\| st(\.|->)st_uid/if (\1st_uid/@an init script not required to be a regular file (a FIFO)'
	'inittimeout@security/environment@pam_namespace/*/*.c@s/if \(elapsed_ms >= \(long\)timeout_s \* 1000\) \{/if (false) {/@an init script that does not end holds the login'
	# the instance parent
	'instparent@integration/failures@pam_namespace/*/*.c@s/\(st(\.|->)st_uid == 0 && !\(st(\.|->)st_mode & 0777\)\)/true/@an instance parent of any owner and mode used'
	# user names, propagation
	'username@security/hostile_input@pam_namespace/core/naming.c@s/if \(\*p == .\/. \|\| /if (/@user names holding a / accepted'
	'nsleader@kernel/unshare@kernel/ns.c@s/return "\/proc\/thread-self\/ns\/mnt";/return "\/proc\/self\/ns\/mnt";/@a threaded caller'"'"'s failed session put back in the thread-group leader'"'"'s namespace, not its own'
	'propagation@security/shared_root@kernel/ns.c@s/if \(mount\(NULL, "\/", NULL, MS_REC \| type, NULL\) < 0\)/if (!type \&\& mount(NULL, "\/", NULL, MS_REC | type, NULL) < 0)/@/ left shared in the new namespace: its mounts reach the caller'
	# share_namespace and share= (extended lines)
	'pindir@integration/share_attacks@pam_namespace/share/*.c@s/if \(!S_ISDIR\(st\.st_mode\) \|\| st\.st_uid != 0 \|\| \(st\.st_mode & 07777\) != 0700\)/if (!S_ISDIR(st.st_mode))/@a pin directory of any owner and mode read by pam_namespace_check (sessions: pinfix, pinowner)'
	'pinfix@integration/share@pam_namespace/share/*.c@s/if \(!made && \(st\.st_mode & 0022\)\)/if (false)/@a pin directory others can write put right and trusted'
	'pinowner@integration/share@pam_namespace/share/*.c@s/if \(!S_ISDIR\(st\.st_mode\) \|\| st\.st_uid != 0\)$/if (!S_ISDIR(st.st_mode))/@a pin directory of another owner taken over'
	'pinprune@integration/share_attacks@pam_namespace/share/*.c@s/if \(!mine \&\& sc->mode != NS_SHARE_SCAN_PRUNE\)/if (!mine)/@gone session records of other keys left in \/run'
	'pincwd@integration/share_attacks integration/su@pam_namespace/apply/apply.c@s/\? kn_open_dir\(cwd->path, NULL\) : -1;/? open(cwd->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;/@a session (joining or built) taken back to its working directory by name, through a user'"'"'s link'
	'pinident@integration/share@pam_namespace/share/*.c@s/if \(s\.st_dev != st->dev \|\| s\.st_ino != st->ino \|\| s\.st_uid != 0\) \{/if (s.st_uid != 0) {/@a pin joined whatever namespace it now holds'
	'pinhere@integration/share@pam_namespace/share/*.c@s/if \(same != 1\)/if (false \&\& same != 1)/@namespaces built outside the init namespace pinned'
	'sharesticky@integration/shared_paths@pam_namespace/core/rules.c@s/return !\(mode \& \(S_IWGRP \| S_IWOTH\)\) \|\| \(mode \& S_ISVTX\);/return true;/@a share= directory anyone may write, not sticky, bound into sessions'
	'shareowner@integration/shared_paths@pam_namespace/core/rules.c@s/if \(uid != 0 && uid != poly_uid\)/if (false)/@a share= directory of any owner bound into sessions'
	'sharelockout@integration/shared_paths@pam_namespace/*/*.c@s/if \(ns_share_instance_is_shared\(e\)\)/if (true)/@a wrong share= directory refuses every session (the lockout of issue 27)'
	# the benchmark's bounds
	'slow@bench/bench_smoke@pam_namespace/module/pam_namespace.c@s/^(#include <unistd.h>)$/\1\n#include <time.h>/; s/^(\tstruct ns_diag diag = \{\.report = diag_to_syslog, \.userdata = &g\};)$/\1 struct timespec burn0, burn1; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, \&burn0); do clock_gettime(CLOCK_PROCESS_CPUTIME_ID, \&burn1); while ((burn1.tv_sec - burn0.tv_sec) * 1000000000L + burn1.tv_nsec - burn0.tv_nsec < 300000);/@300 us more CPU in each pam_open_session'
	'sleepy@bench/bench_smoke@pam_namespace/module/pam_namespace.c@s/^(\tstruct ns_diag diag = \{\.report = diag_to_syslog, \.userdata = &g\};)$/\1 usleep(1000);/@a 1 ms sleep (no CPU) in each pam_open_session'
)
if [[ $# == 0 ]]; then
	for m in "${mutations[@]}"; do
		set -- "$@" "${m%%@*}"
	done
	jobs=${NS_MUTATION_JOBS:-2}
else
	jobs=1
fi

# The whole list, with NS_MUTATION_JOBS (default 2) above 1: the mutants
# whose tests are not the benchmark's are dealt in turn to that many runs
# of this script, side by side, each in a scratch copy and build of its
# own (SCRATCH/N) and running one test at a time, so that while one
# rebuilds or waits the other tests (one run, two tests at once, left a
# core idle most of the time: a mutant names one test or two). Then the
# benchmark's mutants run alone (SCRATCH/bench): their bounds are ratios
# of timings another run beside them would blur. Each run's output is
# shown whole, in turn; the status is the worst of theirs.
if ((jobs > 1)); then
	groups=() bench_names=() i=0
	for m in "${mutations[@]}"; do
		IFS='@' read -r name tests _ <<<"$m"
		if [[ " $tests " == *" bench/"* ]]; then
			bench_names+=("$name")
		else
			groups[i % jobs]+=" $name"
			i=$((i + 1))
		fi
	done
	install -d "$scratch"
	declare -A pids=()
	for ((k = 0; k < jobs; k++)); do
		# shellcheck disable=SC2086 # a list of mutation names
		NS_MUTATION_JOBS=1 MESON_TESTTHREADS=1 bash "$0" "$scratch/$((k + 1))" ${groups[k]} \
			>"$scratch/$((k + 1)).log" 2>&1 &
		pids[$k]=$!
	done
	worst=0 total=0 caught=0
	for ((k = 0; k < jobs; k++)); do
		rc=0
		wait "${pids[$k]}" || rc=$?
		echo "=== run $((k + 1)) of $jobs (${groups[k]# }): status $rc"
		cat "$scratch/$((k + 1)).log"
		((rc == 2 || (rc == 1 && worst == 0))) && worst=$rc
	done
	rc=0
	NS_MUTATION_JOBS=1 bash "$0" "$scratch/bench" "${bench_names[@]}" >"$scratch/bench.log" 2>&1 || rc=$?
	echo "=== the benchmark's mutants, alone (${bench_names[*]}): status $rc"
	cat "$scratch/bench.log"
	((rc == 2 || (rc == 1 && worst == 0))) && worst=$rc
	for log in "$scratch"/*.log; do
		n='' k=''
		read -r n k < <(sed -n 's/^mutation: \([0-9]*\) mutants, \([0-9]*\) caught.*/\1 \2/p' "$log") || true
		total=$((total + ${n:-0})) caught=$((caught + ${k:-0}))
	done
	echo "mutation: $total mutants in all, $caught caught, $((total - caught)) not"
	exit "$worst"
fi

# What each suite's tests need built, and what their failed assertions
# look like: for the shell suites, any "FAIL: FILE.sh:LINE: " the helpers
# print, whichever file the failing assertion is in (sandbox.sh's
# sandbox_refused reports from sandbox.sh).
declare -A targets=(
	[security]="pam_namespace:shared_module pam_driver attacker resolver_race"
	[integration]="pam_namespace:shared_module pam_namespace_share_next:shared_module
		pam_namespace_share_gen2:shared_module pam_driver ns_probe deny_nsfs nss_broken pam_namespace_check"
	[bench]="pam_namespace:shared_module ns_bench"
	[kernel]="test_kernel_unshare"
)
declare -A evidence=(
	[security]='^FAIL: [A-Za-z0-9_.-]+\.sh:[0-9]+: '
	[integration]='^FAIL: [A-Za-z0-9_.-]+\.sh:[0-9]+: '
	[bench]='BROKEN|past (its|their) bound'
	[kernel]='^# [^ ]+\.c:[0-9]+: '
)

# asserted JSON SUITE: from a meson test log, the tests that failed
# (FAIL, not TIMEOUT) with an assertion of SUITE's kind in their own
# output, one "SUITE/TEST<tab>the first such line" a line.
asserted() {
	python3 -c 'import json, re, sys
for d in map(json.loads, open(sys.argv[1])):
    out = (d.get("stdout") or "") + "\n" + (d.get("stderr") or "")
    hits = [ln for ln in out.splitlines() if re.search(sys.argv[3], ln)]
    if d["result"] == "FAIL" and hits:
        print("%s/%s\t%s" % (sys.argv[2], d["name"].split(" / ")[-1], hits[0]))' \
		"$1" "$2" "${evidence[$2]}"
}

# run_tests LOG SUITE TEST...: meson test on the scratch build; prints the
# tests that failed or timed out, one SUITE/TEST a line.
run_tests() {
	local log=$1 suite=$2 rc=0
	shift 2
	meson test -C "$build" --no-rebuild --suite "$suite" "$@" >"$log" 2>&1 || rc=$?
	grep -E '^ *[0-9]+/[0-9]+ .* (FAIL|TIMEOUT) ' "$log" | awk -v s="$suite" '{print s "/" $4}' || true
	return "$rc"
}

# tests_of SUITE LIST: the names of LIST's SUITE/TEST words in SUITE.
tests_of() {
	local t
	for t in $2; do
		[[ $t == "$1"/* ]] && printf '%s\n' "${t#*/}"
	done
	return 0
}

# The mutations asked for, found; each suite's targets and tests, once.
declare -A want_tests=()
picked=()
for want in "$@"; do
	found=
	for m in "${mutations[@]}"; do
		IFS='@' read -r name tests file expr what <<<"$m"
		[[ $name == "$want" ]] && found=$m && break
	done
	[[ -n $found ]] || { echo "mutate.sh: no mutation $want" >&2; exit 2; }
	picked+=("$found")
	for t in $tests; do
		[[ -n "${targets[${t%%/*}]:-}" ]] || { echo "mutate.sh: $name: no suite ${t%%/*}" >&2; exit 2; }
		want_tests[${t%%/*}]+=" ${t#*/}"
	done
done

# A fresh copy and build each run: one left by a run cut short could hold
# a mutant's objects newer than the restored source.
s=$scratch/src
build=$scratch/build
logs=$scratch/logs
rm -rf -- "$s" "$build" "$logs"
install -d "$s" "$logs"
git -C "$src" ls-files -z | tar -C "$src" --null -T - -cf - | tar -C "$s" -xf -
meson setup -Dwerror=true -Dman=disabled "$build" "$s" >"$logs/setup.log" 2>&1 ||
	{ cat "$logs/setup.log"; exit 2; }
all_targets=$(for suite in "${!want_tests[@]}"; do echo "${targets[$suite]}"; done | tr ' ' '\n' | sort -u)
# shellcheck disable=SC2086 # a list of targets
meson compile -C "$build" $all_targets >"$logs/compile.log" 2>&1 || { cat "$logs/compile.log"; exit 2; }

# The control: every named test passes on the copy as it is.
for suite in "${!want_tests[@]}"; do
	tests=$(tr ' ' '\n' <<<"${want_tests[$suite]}" | sort -u | paste -sd' ' -)
	echo "=== control: $suite tests $tests without a mutant"
	# shellcheck disable=SC2086 # a list of test names
	failed=$(run_tests "$logs/control-$suite.log" "$suite" $tests) || {
		cat "$logs/control-$suite.log"
		echo "mutate.sh: tests failed without a mutant ($failed): they can catch nothing" >&2
		exit 2
	}
	if grep -E '^ *[0-9]+/[0-9]+ .* SKIP ' "$logs/control-$suite.log"; then
		echo "mutate.sh: a named test skips here: it can catch nothing" >&2
		exit 2
	fi
done

survived=0 killed=0
for m in "${picked[@]}"; do
	IFS='@' read -r name tests file expr what <<<"$m"
	# FILE may be a glob, so that a rule stays found when its file is
	# split: the mutation must change exactly one of the files it names.
	pattern=$file file=
	for f in $(cd "$s" && compgen -G "$pattern" | LC_ALL=C sort); do
		cp "$s/$f" "$logs/orig"
		sed -i -E "$expr" "$s/$f"
		cmp -s "$logs/orig" "$s/$f" && continue
		cp "$logs/orig" "$s/$f"
		[[ -z $file ]] || { echo "mutate.sh: $name: '$expr' changes both $file and $f" >&2; exit 2; }
		file=$f
	done
	if [[ -z $file ]]; then
		echo "mutate.sh: $name: '$expr' changed nothing in $pattern: the mutation is stale" >&2
		exit 2
	fi
	cp "$s/$file" "$logs/orig"
	sed -i -E "$expr" "$s/$file"
	echo "=== mutant $name ($what): $(diff "$logs/orig" "$s/$file" | grep -c '^>') lines changed in $file; $tests must fail"
	suites=$(for t in $tests; do echo "${t%%/*}"; done | sort -u)
	caught='' asserts=''
	for suite in $suites; do
		# shellcheck disable=SC2086 # a list of targets
		if ! meson compile -C "$build" ${targets[$suite]} >"$logs/compile-$name.log" 2>&1; then
			cp "$logs/orig" "$s/$file"
			cat "$logs/compile-$name.log"
			echo "mutate.sh: mutant $name did not build" >&2
			exit 2
		fi
		# shellcheck disable=SC2046 # a list of test names
		caught+=$(run_tests "$logs/test-$name-$suite.log" "$suite" $(tests_of "$suite" "$tests"))$'\n' || true
		cp "$build/meson-logs/testlog.txt" "$logs/testlog-$name-$suite.txt"
		cp "$build/meson-logs/testlog.json" "$logs/testlog-$name-$suite.json"
		# The evidence, per test: a failed assertion in its own output.
		# A test that timed out or died otherwise, such as of a build or
		# setup error, shows none and catches nothing, whatever another
		# named test showed.
		asserts+=$(asserted "$logs/testlog-$name-$suite.json" "$suite")$'\n'
	done
	# Put the file back (a new mtime: the next build recompiles it).
	cp "$logs/orig" "$s/$file"
	missed=
	for t in $tests; do
		cut -f 1 <<<"$asserts" | grep -qxF "$t" || missed+=" $t"
	done
	asserts=$(grep . <<<"$asserts" || true)
	if [[ -n $missed ]]; then
		echo "SURVIVED: mutant $name: no failed assertion of its own in$missed (failed or timed out: $(grep . <<<"$caught" | paste -sd' ' -)) (logs: $logs/testlog-$name-*.txt)"
		survived=$((survived + 1))
	else
		echo "killed: mutant $name failed $(grep . <<<"$caught" | paste -sd' ' -)"
		awk '{ print "    " $0 }' <<<"$asserts"
		killed=$((killed + 1))
	fi
done
echo "mutation: $((killed + survived)) mutants, $killed caught, $survived survived"
[[ $survived == 0 ]] || { echo "mutate.sh: $survived mutant(s) survived" >&2; exit 1; }
