#!/usr/bin/env bash
# A single-node Ceph cluster for the RBD tests (Debian 12, root, no systemd):
# packages (Ceph, libvirt's rbd storage driver, QEMU's rbd block driver), one
# monitor on 127.0.0.1:6789 with cephx, one bluestore OSD on a sparse block
# file, one manager, pool `rbd` and a key for `client.libvirt` limited to
# that pool. Writes /var/cache/tfplv/env-ceph.sh with the monitor and the key.
# Prints how long the start took and the resident memory of each daemon.
# Idempotent: a running cluster is kept. `scripts/testenv-ceph.sh stop` ends
# the daemons (the data stays; the next start reuses it).
# See docs/adr/0003-content-into-rbd.md and shared notes ceph-rbd.md.
set -euo pipefail

CACHE_DIR=/var/cache/tfplv
ENV_FILE="$CACHE_DIR/env-ceph.sh"
CEPH_DIR=/var/lib/tfplv-ceph # everything of the cluster: conf, keys, mon, osd, block file
CONF=/etc/ceph/ceph.conf
MON_HOST=127.0.0.1
MON_PORT=6789
BLOCK_FILE="$CEPH_DIR/osd0.block" # outside the OSD dir: bluestore links `block` to it
BLOCK_SIZE=$((8 << 30))           # sparse
POOL=rbd
CLIENT=libvirt
LIBVIRT_URI=qemu:///system
PACKAGES=(ceph-mon ceph-osd ceph-mgr ceph-common libvirt-daemon-driver-storage-rbd qemu-block-extra)

log() { printf '[testenv-ceph %s] %s\n' "$(date +%T)" "$*"; }

ensure_packages() {
  local missing=() p
  for p in "${PACKAGES[@]}"; do
    [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" == 'install ok installed' ]] || missing+=("$p")
  done
  ((${#missing[@]} == 0)) && return
  log "packages: installing ${missing[*]}"
  apt-get update -qq || log "apt-get update reported errors (continuing with what it fetched)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# libvirtd loads its storage backends at start: one started before the rbd
# driver was installed reports rbd as unsupported until it is restarted
# (with the start command scripts/testenv.sh uses).
ensure_libvirtd_rbd() {
  if virsh -q -c "$LIBVIRT_URI" pool-capabilities | grep -q "type='rbd' supported='yes'"; then
    return
  fi
  log "restarting libvirtd to load the rbd storage driver"
  local pid
  pid=$(pgrep -x libvirtd || true)
  if [[ -n "$pid" ]]; then
    kill "$pid"
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  fi
  libvirtd -d
  for _ in $(seq 1 60); do
    virsh -q -c "$LIBVIRT_URI" pool-capabilities 2>/dev/null | grep -q "type='rbd' supported='yes'" && return
    sleep 0.5
  done
  echo "libvirtd does not support rbd pools after a restart" >&2
  exit 1
}

write_conf() {
  local fsid
  fsid=$(cat "$CEPH_DIR/fsid")
  mkdir -p /etc/ceph
  cat >"$CONF" <<EOF
# Written by scripts/testenv-ceph.sh: a single-node test cluster on loopback.
[global]
fsid = $fsid
mon initial members = a
mon host = $MON_HOST:$MON_PORT
public network = 127.0.0.0/8
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
osd pool default size = 1
osd pool default min size = 1
mon allow pool size one = true
mon allow pool delete = true
osd crush chooseleaf type = 0
mon warn on pool no redundancy = false
mon data avail warn = 5
auth allow insecure global id reclaim = false
# clients (rbd, qemu-img, QEMU as libvirt-qemu) keep the defaults: keys in
# /etc/ceph or from libvirt's secret, no log file they could not write
keyring = /etc/ceph/\$cluster.\$name.keyring,$CEPH_DIR/\$cluster.\$name.keyring

[mon.a]
run dir = $CEPH_DIR/run
log file = $CEPH_DIR/log/\$name.log

[osd.0]
run dir = $CEPH_DIR/run
log file = $CEPH_DIR/log/\$name.log

[mgr.x]
run dir = $CEPH_DIR/run
log file = $CEPH_DIR/log/\$name.log

[mon]
mon data = $CEPH_DIR/mon-\$id

[osd]
osd data = $CEPH_DIR/osd-\$id
osd objectstore = bluestore
bluestore block create = true
bluestore block size = $BLOCK_SIZE
bluestore block path = $BLOCK_FILE
osd memory target = 939524096
bluestore cache autotune = false
bluestore cache size = 67108864

[mgr]
mgr data = $CEPH_DIR/mgr-\$id
EOF
}

# first_setup makes the monitor, the OSD and the manager's key once.
first_setup() {
  [[ -f "$CEPH_DIR/done" ]] && return
  log "creating the cluster in $CEPH_DIR"
  rm -rf "$CEPH_DIR"
  mkdir -p "$CEPH_DIR"/{run,log,mon-a,osd-0,mgr-x}
  uuidgen >"$CEPH_DIR/fsid"
  write_conf
  ceph-authtool --create-keyring "$CEPH_DIR/mon.keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
  ceph-authtool --create-keyring "$CEPH_DIR/ceph.client.admin.keyring" --gen-key -n client.admin \
    --cap mon 'allow *' --cap osd 'allow *' --cap mgr 'allow *' --cap mds 'allow *' >/dev/null
  ceph-authtool "$CEPH_DIR/mon.keyring" --import-keyring "$CEPH_DIR/ceph.client.admin.keyring" >/dev/null
  cp "$CEPH_DIR/ceph.client.admin.keyring" /etc/ceph/ceph.client.admin.keyring
  monmaptool --create --add a "$MON_HOST:$MON_PORT" --fsid "$(cat "$CEPH_DIR/fsid")" "$CEPH_DIR/monmap" >/dev/null
  # mkfs complains about keyrings and labels it is about to create: kept in the log
  ceph-mon --mkfs -i a --monmap "$CEPH_DIR/monmap" --keyring "$CEPH_DIR/mon.keyring" 2>>"$CEPH_DIR/log/mkfs.log"
  start_mon
  local osd_uuid id
  osd_uuid=$(uuidgen)
  id=$(ceph osd new "$osd_uuid")
  [[ "$id" == 0 ]] || { echo "expected OSD id 0, got $id" >&2; exit 1; }
  ceph auth get-or-create osd.0 mon 'allow profile osd' mgr 'allow profile osd' osd 'allow *' \
    -o "$CEPH_DIR/ceph.osd.0.keyring"
  rm -f "$BLOCK_FILE"
  ceph-osd -i 0 --mkfs --osd-uuid "$osd_uuid" 2>>"$CEPH_DIR/log/mkfs.log"
  ceph auth get-or-create mgr.x mon 'allow profile mgr' osd 'allow *' mds 'allow *' -o "$CEPH_DIR/ceph.mgr.x.keyring"
  touch "$CEPH_DIR/done"
}

start_mon() {
  pgrep -f "^ceph-mon -i a" >/dev/null && return
  ceph-mon -i a
}

start_daemons() {
  start_mon
  pgrep -f "^ceph-osd -i 0" >/dev/null || ceph-osd -i 0 2>>"$CEPH_DIR/log/start.log"
  pgrep -f "^ceph-mgr -i x" >/dev/null || ceph-mgr -i x 2>>"$CEPH_DIR/log/start.log"
}

wait_healthy() {
  local i
  for i in $(seq 1 120); do
    if ceph osd stat 2>/dev/null | grep -q '1 up.*1 in'; then
      return
    fi
    sleep 0.5
  done
  ceph -s >&2 || true
  echo "the OSD did not come up within 60s" >&2
  exit 1
}

ensure_pool_and_client() {
  if ! ceph osd pool ls | grep -qx "$POOL"; then
    ceph osd pool create "$POOL" 8 >/dev/null 2>&1
    ceph osd pool set "$POOL" size 1 --yes-i-really-mean-it >/dev/null 2>&1
    rbd pool init "$POOL"
  fi
  ceph auth get-or-create "client.$CLIENT" mon 'profile rbd' osd "profile rbd pool=$POOL" >/dev/null
  # the RBD tests' rbd/qemu-img look-ups use the same key as libvirt
  ceph auth get "client.$CLIENT" -o "/etc/ceph/ceph.client.$CLIENT.keyring" 2>/dev/null
}

rss_mib() { # rss_mib PATTERN: resident memory of the process in MiB
  local pid
  pid=$(pgrep -f "$1" | head -1)
  [[ -n "$pid" ]] || { echo "?"; return; }
  awk '/^VmRSS/ {printf "%.0f", $2/1024}' "/proc/$pid/status"
}

write_env() {
  local key
  key=$(ceph auth get-key "client.$CLIENT")
  umask 077
  cat >"$ENV_FILE.tmp" <<EOF
# Written by scripts/testenv-ceph.sh on $(date -u +%FT%TZ). Source it with env.sh for the RBD tests.
export LIBVIRT_TEST_CEPH_MON_HOST=$MON_HOST
export LIBVIRT_TEST_CEPH_MON_PORT=$MON_PORT
export LIBVIRT_TEST_CEPH_POOL=$POOL
export LIBVIRT_TEST_CEPH_USER=$CLIENT
export LIBVIRT_TEST_CEPH_KEY=$key
export LIBVIRT_TEST_CEPH_CONF=$CONF
EOF
  mv -f "$ENV_FILE.tmp" "$ENV_FILE"
  log "wrote $ENV_FILE"
}

stop() {
  local name pid
  for name in "ceph-mgr -i x" "ceph-osd -i 0" "ceph-mon -i a"; do
    pid=$(pgrep -f "^$name" || true)
    [[ -n "$pid" ]] || continue
    kill "$pid"
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    log "stopped $name"
  done
}

main() {
  [[ $(id -u) -eq 0 ]] || { echo "scripts/testenv-ceph.sh must run as root" >&2; exit 1; }
  if [[ "${1:-}" == stop ]]; then
    stop
    return
  fi
  mkdir -p "$CACHE_DIR"
  local t0=$EPOCHREALTIME
  ensure_packages
  ensure_libvirtd_rbd
  local t1=$EPOCHREALTIME
  first_setup
  write_conf
  start_daemons
  wait_healthy
  ensure_pool_and_client
  write_env
  awk -v a="$EPOCHREALTIME" -v b="$t0" -v c="$t1" \
    'BEGIN{printf "[testenv-ceph] ready in %.1fs (packages and libvirtd %.1fs, cluster %.1fs)\n", a-b, c-b, a-c}'
  log "resident memory: mon $(rss_mib '^ceph-mon -i a') MiB, osd $(rss_mib '^ceph-osd -i 0') MiB, mgr $(rss_mib '^ceph-mgr -i x') MiB"
}

main "$@"
