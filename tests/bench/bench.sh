#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
#
# The benchmark: our module, Linux-PAM's and the bare system calls, in a
# throwaway sandbox (tests/lib/sandbox.sh). Arguments go to ns_bench:
#
#   meson test -C build --benchmark --verbose              # the full run
#   meson test -C build bench_smoke --verbose               # a few rounds
#   NS_BENCH=build/tests/bench/ns_bench bash tests/bench/bench.sh [--only SCENARIO]...
#
#   NS_LPAM_MODULE  Linux-PAM's module (default: the system's pam_namespace.so)
#
# Both modules read /etc/security in the sandbox. For the namespace.init
# scenario each runs its own default script: Linux-PAM the system's
# /etc/security/namespace.init (copied into the sandbox), ours this tree's
# conf/namespace.init through config_dir=; ours is also run with the
# system's script, so that both run the very same one.
set -euo pipefail
# shellcheck source=../lib/sandbox.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/sandbox.sh"

if [[ -z "${SB_INSIDE:-}" ]]; then
	NS_LPAM_MODULE=${NS_LPAM_MODULE:-}
	if [[ -z "$NS_LPAM_MODULE" ]]; then
		for d in "${SB_SYSTEM_MODULE_DIRS[@]}"; do
			if [[ -f "$d/pam_namespace.so" ]]; then
				NS_LPAM_MODULE=$d/pam_namespace.so
				break
			fi
		done
	fi
	[[ -f "$NS_LPAM_MODULE" ]] || skip "Linux-PAM's pam_namespace.so is not installed"
	NS_LPAM_MODULE=$(readlink -f "$NS_LPAM_MODULE")
	NS_BENCH=${NS_BENCH:-$SB_SOURCE_ROOT/build/tests/bench/ns_bench}
	[[ -x "$NS_BENCH" ]] || fail "no benchmark program at $NS_BENCH (set NS_BENCH)"
	# The scripts as text: the sandbox hides the host's /etc/security.
	NS_BENCH_LPAM_INIT=$(cat /etc/security/namespace.init 2>/dev/null || true)
	NS_BENCH_OUR_INIT=$(cat "$SB_SOURCE_ROOT/conf/namespace.init")
	export NS_LPAM_MODULE NS_BENCH NS_BENCH_LPAM_INIT NS_BENCH_OUR_INIT
	# Scenarios share and scale, in a sandbox of its own on one CPU: the
	# kernel pins a namespace only into one with a smaller id, and hands ids
	# out in per-CPU batches, so the sandbox's namespace must come from the
	# CPU the sessions run on (the init namespace, where the module pins on a
	# real system, is always the oldest). share runs with every full or
	# smoke run, scale with a smoke run (small) or when named.
	only=() args=() one_cpu=() smoke='' named=''
	while (($#)); do
		if [[ $1 == --only && $# -gt 1 ]]; then
			only+=("$2")
			named=1
			shift 2
			continue
		fi
		[[ $1 == --smoke ]] && smoke=1
		args+=("$1")
		shift
	done
	if [[ -z "${NS_BENCH_SHARE_RUN:-}" ]]; then
		for s in share scale; do
			if [[ " ${only[*]} " == *" $s "* ]] ||
				{ ((${#only[@]} == 0)) && [[ $s == share || -n $smoke ]]; }; then
				one_cpu+=(--only "$s")
				rest=()
				for o in "${only[@]}"; do
					[[ $o == "$s" ]] || rest+=("$o")
				done
				only=(${rest[@]+"${rest[@]}"})
			fi
		done
	fi
	if ((${#one_cpu[@]})); then
		command -v taskset >/dev/null || skip "taskset(1) is missing, for scenarios share and scale"
		NS_BENCH_SHARE_RUN=1 taskset -c 0 bash "${BASH_SOURCE[0]}" "${args[@]}" "${one_cpu[@]}"
		# every scenario named ran there
		[[ ${#one_cpu[@]} -gt 0 && ${#only[@]} -eq 0 && -n "${named:-}" ]] && exit 0
	fi
	set -- "${args[@]}"
	for o in ${only[@]+"${only[@]}"}; do
		set -- "$@" --only "$o"
	done
fi
sandbox_enter "$@"

NS_BENCH_LPAM_INIT+=$'\n'
NS_BENCH_OUR_INIT+=$'\n'
"$NS_BENCH" --ours "$NS_MODULE" --linux-pam "$NS_LPAM_MODULE" "$@"
