#!/usr/bin/env bash
# A second libvirt host on this machine, for tests that need two hosts
# (migration, per-resource host). Run after scripts/testenv.sh.
#
#   bash scripts/testenv-host2.sh        start it (idempotent), write the env file
#   bash scripts/testenv-host2.sh stop   stop it (its domains are destroyed)
#
# Host B is a second libvirtd in its own mount namespace (unshare -m): private
# copies of /etc/libvirt (config without the first host's domains, networks,
# pools and secrets), /var/lib/libvirt/qemu, /var/lib/libvirt/dnsmasq,
# /var/cache/libvirt and /var/log/libvirt, and a tmpfs over /run/libvirt (its
# sockets, its own virtlogd). Everything else is shared with host A: the rest
# of the file system (so /var/lib/libvirt/images and /var/tmp/tfacc-pool are
# "shared storage" for migration), the network stack (bridge names of the two
# hosts must differ) and the kernel. It listens only on
# qemu+tcp://127.0.0.1:16600/system, without authentication.
#
# Its daemons run as `libvirtd-b` and `virtlogd-b` (links to the real binaries)
# so that `pgrep -x libvirtd` / `pkill -x libvirtd` (scripts/testenv.sh, the
# restart tests) only ever see host A's daemon.
#
# Writes /var/cache/tfplv/env-host2.sh:
#   LIBVIRT_TEST_URI_B   qemu+tcp://127.0.0.1:16600/system
#   LIBVIRT_TEST_POOL_B  tfacc: a dir pool on host B over host A's tfacc folder
set -euo pipefail

CACHE_DIR=/var/cache/tfplv
STATE_DIR="${TFPLV_HOST2_DIR:-/var/lib/tfplv-host2}"
PORT="${TFPLV_HOST2_PORT:-16600}"
URI="qemu+tcp://127.0.0.1:$PORT/system"
ENV_FILE="$CACHE_DIR/env-host2.sh"
POOL_NAME=tfacc
POOL_DIR=/var/tmp/tfacc-pool
LIBVIRTD_PID="$STATE_DIR/libvirtd.pid"
VIRTLOGD_PID="$STATE_DIR/virtlogd.pid"

log() { printf '[testenv-host2 %s] %s\n' "$(date +%T)" "$*"; }

answers() { virsh -q -c "$URI" version >/dev/null 2>&1; }

pid_alive() { # PIDFILE
  local pid
  [[ -r "$1" ]] || return 1
  pid=$(cat "$1" 2>/dev/null) || return 1
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null
}

# prepare_state builds the host's private folders once; the config copy is
# re-made when the first host's config changes (a missing marker file).
prepare_state() {
  mkdir -p "$STATE_DIR"/{qemu,dnsmasq,cache,log,bin}
  # Same owner and mode as the first host's folders (qemu runs as libvirt-qemu).
  chown --reference=/var/lib/libvirt/qemu "$STATE_DIR/qemu"
  chmod --reference=/var/lib/libvirt/qemu "$STATE_DIR/qemu"
  chmod 0755 "$STATE_DIR/log"
  ln -sfn /usr/sbin/libvirtd "$STATE_DIR/bin/libvirtd-b"
  ln -sfn /usr/sbin/virtlogd "$STATE_DIR/bin/virtlogd-b"
  [[ -s "$STATE_DIR/host_uuid" ]] || cat /proc/sys/kernel/random/uuid >"$STATE_DIR/host_uuid"

  if [[ ! -f "$STATE_DIR/etc/.tfplv-host2" ]]; then
    log "copying /etc/libvirt to $STATE_DIR/etc (without domains, networks, pools, secrets)"
    rm -rf "$STATE_DIR/etc.tmp"
    cp -a /etc/libvirt "$STATE_DIR/etc.tmp"
    (cd "$STATE_DIR/etc.tmp" &&
      rm -f qemu/*.xml qemu/autostart/* qemu/networks/*.xml qemu/networks/autostart/* \
        storage/*.xml storage/autostart/* secrets/* nodedev/*.xml 2>/dev/null || true)
    cat >>"$STATE_DIR/etc.tmp/libvirtd.conf" <<EOF

# --- testenv-host2: the second host (scripts/testenv-host2.sh) ---
listen_tls = 0
listen_tcp = 1
tcp_port = "$PORT"
listen_addr = "127.0.0.1"
auth_tcp = "none"
host_uuid = "$(cat "$STATE_DIR/host_uuid")"
EOF
    # Port ranges apart from host A's defaults (both daemons allocate on the
    # same network stack), and no cgroups: host A already owns
    # /sys/fs/cgroup/*/machine/qemu-ID-NAME.libvirt-qemu, and a domain migrating
    # between the hosts could get the same ID on both.
    cat >>"$STATE_DIR/etc.tmp/qemu.conf" <<EOF

# --- testenv-host2: the second host (scripts/testenv-host2.sh) ---
remote_display_port_min = 6000
remote_display_port_max = 6099
remote_websocket_port_min = 6100
remote_websocket_port_max = 6199
migration_port_min = 49300
migration_port_max = 49399
cgroup_controllers = [ ]
EOF
    touch "$STATE_DIR/etc.tmp/.tfplv-host2"
    rm -rf "$STATE_DIR/etc"
    mv "$STATE_DIR/etc.tmp" "$STATE_DIR/etc"
  fi
  # QEMU's capability cache is valid for both hosts: saves the first probe.
  if [[ ! -d "$STATE_DIR/cache/qemu" && -d /var/cache/libvirt/qemu ]]; then
    cp -a /var/cache/libvirt/qemu "$STATE_DIR/cache/qemu"
  fi
}

start_daemons() {
  mkdir -p /var/lib/libvirt/dnsmasq /var/cache/libvirt /var/log/libvirt /run/libvirt
  log "starting libvirtd-b (mount namespace, $URI)"
  # The namespace lives as long as the daemons started in it.
  unshare -m --propagation private bash -euo pipefail -c '
    s=$1
    mount --bind "$s/etc" /etc/libvirt
    mount --bind "$s/qemu" /var/lib/libvirt/qemu
    mount --bind "$s/dnsmasq" /var/lib/libvirt/dnsmasq
    mount --bind "$s/cache" /var/cache/libvirt
    mount --bind "$s/log" /var/log/libvirt
    mount -t tmpfs -o mode=0755 tfplv-host2-run /run/libvirt
    "$s/bin/virtlogd-b" -d -p "$s/virtlogd.pid"
    "$s/bin/libvirtd-b" -d --listen -p "$s/libvirtd.pid" -f /etc/libvirt/libvirtd.conf
  ' host2 "$STATE_DIR"
}

ensure_daemon() {
  if pid_alive "$LIBVIRTD_PID" && answers; then
    log "libvirtd-b already answers on $URI"
    return
  fi
  if pid_alive "$LIBVIRTD_PID" || pid_alive "$VIRTLOGD_PID"; then
    log "libvirtd-b half up (not answering): restarting it"
    stop_daemons
  fi
  start_daemons
  local i
  for i in $(seq 1 120); do
    if answers; then
      log "libvirtd-b answers on $URI"
      return
    fi
    sleep 0.25
  done
  echo "libvirtd-b did not answer on $URI within 30s; see $STATE_DIR/log/libvirtd.log" >&2
  exit 1
}

# The tfacc pool on host B: same folder as host A's, so its volumes are on
# storage both hosts see.
ensure_pool() {
  mkdir -p "$POOL_DIR"
  if ! virsh -q -c "$URI" pool-info "$POOL_NAME" >/dev/null 2>&1; then
    log "defining storage pool $POOL_NAME at $POOL_DIR on host B"
    virsh -q -c "$URI" pool-define-as "$POOL_NAME" dir --target "$POOL_DIR" >/dev/null
  fi
  virsh -q -c "$URI" pool-autostart "$POOL_NAME" >/dev/null 2>&1 || true
  if [[ ! "$(virsh -q -c "$URI" pool-info "$POOL_NAME")" =~ State:\ +running ]]; then
    virsh -q -c "$URI" pool-start "$POOL_NAME" >/dev/null
  fi
  virsh -q -c "$URI" pool-refresh "$POOL_NAME" >/dev/null 2>&1 || true
}

write_env() {
  cat >"$ENV_FILE.tmp" <<EOF
# Written by scripts/testenv-host2.sh on $(date -u +%FT%TZ). Source it (after
# env.sh) for tests that need the second libvirt host.
export LIBVIRT_TEST_URI_B=$URI
export LIBVIRT_TEST_POOL_B=$POOL_NAME
export TF_VAR_libvirt_uri_b=$URI
EOF
  mv -f "$ENV_FILE.tmp" "$ENV_FILE"
  log "wrote $ENV_FILE (LIBVIRT_TEST_URI_B=$URI)"
}

stop_pid() { # PIDFILE NAME
  local pid i
  pid_alive "$1" || return 0
  pid=$(cat "$1")
  kill -TERM "$pid"
  for i in $(seq 1 120); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.25
  done
  log "$2 ($pid) did not stop within 30s: SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
}

stop_daemons() {
  local name
  if answers; then
    for name in $(virsh -q -c "$URI" list --name 2>/dev/null); do
      virsh -q -c "$URI" destroy "$name" >/dev/null 2>&1 || true
    done
  fi
  stop_pid "$LIBVIRTD_PID" libvirtd-b
  stop_pid "$VIRTLOGD_PID" virtlogd-b
  rm -f "$LIBVIRTD_PID" "$VIRTLOGD_PID"
}

main() {
  [[ $(id -u) -eq 0 ]] || {
    echo "scripts/testenv-host2.sh must run as root" >&2
    exit 1
  }
  mkdir -p "$CACHE_DIR"
  case "${1:-start}" in
  start)
    local t0=$SECONDS
    prepare_state
    ensure_daemon
    ensure_pool
    write_env
    log "ready in $((SECONDS - t0))s; run: source $ENV_FILE"
    ;;
  stop)
    stop_daemons
    rm -f "$ENV_FILE"
    log "stopped"
    ;;
  *)
    echo "usage: $0 [start|stop]" >&2
    exit 2
    ;;
  esac
}

main "$@"
