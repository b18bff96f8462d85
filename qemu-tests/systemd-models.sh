# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Device models as a user runs them: the ornic-model package installed with
# dpkg into a container that boots systemd (systemd-nspawn over an overlay
# of the testbed root), each model an instance of ornic-model@.service with
# its /etc/ornic/NAME.conf, so the unit's sandboxing and the model's own
# confinement are what the guests use.  The containers' /run/ornic is a
# directory of the testbed, which is how QEMU reaches the vfio-user sockets.
# Sourced by the check scripts inside the testbed.
# shellcheck shell=bash

SYSD_DIR=
SYSD_PID=
SYSD_LEADER=
SYSD_N=0
# Why sysd_models_start failed (read by the caller).
export SYSD_WHY=

# sysd_in CMD...: run CMD in the booted container (its namespaces, its
# systemd, its journal).
sysd_in() {
	nsenter -t "$SYSD_LEADER" -m -p -u -i -r -w -- "$@"
}

# sysd_models_start DIR N MODEL_DEB: boot the container with models
# m0..m<N-1>; model 2k and 2k+1 are linked by an AF_UNIX datagram wire
# (PORT=unix:) as models_start's "link" links them.  On failure SYSD_WHY
# says why.  Not to be called in a subshell: it keeps the container's PIDs.
sysd_models_start() {
	local dir=$1 n=$2 deb=$3 root i peer state
	SYSD_WHY=
	SYSD_DIR=$dir SYSD_N=$n SYSD_PID='' SYSD_LEADER=''
	root=$dir/root
	rm -rf "$dir"
	mkdir -p "$dir/upper" "$dir/work" "$root" "$dir/run"
	if ! mount -t overlay overlay -o "lowerdir=/,upperdir=$dir/upper,workdir=$dir/work" "$root"; then
		SYSD_WHY="cannot mount the container's overlay root"
		return 1
	fi
	# A machine ID of its own, so its journal is not the testbed's.
	rm -f "$root/etc/machine-id"
	# Installed as a user installs it: dpkg -i (its sysusers file makes
	# the ornic user, the unit comes with it).
	if ! { cp "$deb" "$root/tmp/" && chroot "$root" dpkg -i "/tmp/$(basename "$deb")" >"$dir/dpkg.log" 2>&1; }; then
		SYSD_WHY="dpkg -i $(basename "$deb") failed: $(tail -n 3 "$dir/dpkg.log" | tr '\n' ' ')"
		return 1
	fi
	mkdir -p "$root/etc/ornic"
	for ((i = 0; i < n; i++)); do
		peer=$((i ^ 1))
		printf 'PORT=unix:/run/ornic/m%d/wire.sock,/run/ornic/m%d/wire.sock\nMAC=%s\nCAPTURE=/var/log/ornic/m%d/port.pcap\n' \
			"$i" "$peer" "$(printf '02:00:00:00:00:%02x' $((i + 1)))" "$i" >"$root/etc/ornic/m$i.conf"
	done
	# The container boots into a target that wants only the models (and
	# what systemd itself brings up), not every service of the testbed.
	{
		echo "[Unit]"
		echo "Description=ornic models of make check"
		for ((i = 0; i < n; i++)); do
			echo "Wants=ornic-model@m$i.service"
		done
	} >"$root/etc/systemd/system/ornic-check.target"
	# The console's output goes to container.log: on a passive console
	# nobody reads, systemd blocks once its status lines fill the pty
	# (a slow boot on a loaded host) and answers systemctl no more.
	systemd-nspawn -q -D "$root" --boot --register=no --keep-unit --console=read-only \
		--bind="$dir/run:/run/ornic" --machine=ornic-check -- --unit=ornic-check.target \
		>"$dir/container.log" 2>&1 &
	SYSD_PID=$!
	for _ in $(seq 300); do
		[ -z "$SYSD_LEADER" ] && SYSD_LEADER=$(pgrep -P "$SYSD_PID" -x systemd | head -n 1)
		if [ -n "$SYSD_LEADER" ]; then
			state=$(timeout 10 nsenter -t "$SYSD_LEADER" -m -p -u -i -r -w -- \
				systemctl is-system-running 2>/dev/null)
			case $state in running | degraded) break ;; esac
		fi
		kill -0 "$SYSD_PID" 2>/dev/null || break
		sleep 0.2
	done
	if [ -z "$SYSD_LEADER" ] || ! kill -0 "$SYSD_PID" 2>/dev/null; then
		SYSD_WHY="the container did not boot: $(tail -n 5 "$dir/container.log" | tr '\n' ' ')"
		return 1
	fi
	SYSD_WHY=$(sysd_models_wait)
}

# sysd_models_wait: every model listens on its vfio-user socket; prints
# why not.
sysd_models_wait() {
	local i
	for ((i = 0; i < SYSD_N; i++)); do
		for _ in $(seq 100); do
			[ -S "$SYSD_DIR/run/m$i/vfio-user.sock" ] && break
			sleep 0.1
		done
		if [ ! -S "$SYSD_DIR/run/m$i/vfio-user.sock" ]; then
			echo "ornic-model@m$i: no socket; $(sysd_in systemctl is-active "ornic-model@m$i" 2>&1)," \
				"$(sysd_in journalctl -q -b -u "ornic-model@m$i" --no-pager 2>&1 | tail -n 3 | tr '\n' ' ')"
			return 1
		fi
	done
}

# sysd_models_vm_args: the vm.sh options attaching the container's models.
sysd_models_vm_args() {
	local i
	for ((i = 0; i < SYSD_N; i++)); do
		printf -- '--vfio-user\n%s\n' "$SYSD_DIR/run/m$i/vfio-user.sock"
	done
}

# sysd_models_describe: how the first model runs, as its /proc shows it:
# user, seccomp mode and no_new_privs, and the unit's state.
sysd_models_describe() {
	local pid status
	pid=$(sysd_in systemctl show -P MainPID ornic-model@m0 2>/dev/null)
	# The container's PID namespace is below ours: read it through nsenter.
	status=$(sysd_in cat "/proc/$pid/status" 2>/dev/null)
	printf 'ornic-model@m0 %s as %s, Seccomp %s, NoNewPrivs %s' \
		"$(sysd_in systemctl is-active ornic-model@m0 2>&1)" \
		"$(sysd_in ps -o user= -p "$pid" 2>/dev/null)" \
		"$(awk '$1 == "Seccomp:" { print $2 }' <<<"$status")" \
		"$(awk '$1 == "NoNewPrivs:" { print $2 }' <<<"$status")"
}

# sysd_models_check: every model still running with no restart by systemd
# (a guest must not crash one); prints what went wrong, status 0 if none.
sysd_models_check() {
	local i bad=0 state restarts
	for ((i = 0; i < SYSD_N; i++)); do
		state=$(sysd_in systemctl is-active "ornic-model@m$i" 2>&1)
		restarts=$(sysd_in systemctl show -P NRestarts "ornic-model@m$i" 2>&1)
		if [ "$state" != active ] || [ "$restarts" != 0 ]; then
			echo "ornic-model@m$i: $state, $restarts restarts:" \
				"$(sysd_in journalctl -q -b -u "ornic-model@m$i" --no-pager 2>&1 | tail -n 3 | tr '\n' ' ')"
			bad=1
		fi
	done
	return $bad
}

# sysd_models_stop: stop every model with systemctl (each must exit 0 on
# SIGTERM and remove its socket); their journals go to DIR/m<i>.journal.
# Prints what went wrong; status 0 when all is well.
sysd_models_stop() {
	local i bad=0 result status
	for ((i = 0; i < SYSD_N; i++)); do
		sysd_in systemctl stop "ornic-model@m$i" 2>/dev/null
		result=$(sysd_in systemctl show -P Result "ornic-model@m$i" 2>&1)
		status=$(sysd_in systemctl show -P ExecMainStatus "ornic-model@m$i" 2>&1)
		sysd_in journalctl -q -b -u "ornic-model@m$i" --no-pager >>"$SYSD_DIR/m$i.journal" 2>&1
		if [ "$result" != success ] || [ "$status" != 0 ]; then
			echo "ornic-model@m$i stopped with result $result, status $status"
			bad=1
		fi
		if [ -e "$SYSD_DIR/run/m$i/vfio-user.sock" ]; then
			echo "ornic-model@m$i left its socket"
			bad=1
		fi
	done
	return $bad
}

# sysd_models_start_again: start the stopped models once more (a fresh
# device for the next guest); prints why on failure.
sysd_models_start_again() {
	local i
	for ((i = 0; i < SYSD_N; i++)); do
		sysd_in systemctl start "ornic-model@m$i" || { echo "systemctl start ornic-model@m$i failed"; return 1; }
	done
	sysd_models_wait
}

# sysd_poweroff: the container shut down (whatever still runs in it is
# killed after 30 s) and its root unmounted.
sysd_poweroff() {
	[ -n "$SYSD_PID" ] || return 0
	[ -n "$SYSD_LEADER" ] && sysd_in systemctl poweroff --no-block >/dev/null 2>&1
	for _ in $(seq 150); do
		kill -0 "$SYSD_PID" 2>/dev/null || break
		sleep 0.2
	done
	kill -KILL "$SYSD_PID" 2>/dev/null
	wait "$SYSD_PID" 2>/dev/null
	umount "$SYSD_DIR/root" 2>/dev/null
	SYSD_PID='' SYSD_LEADER=''
}
