#!/usr/bin/env bash
# Proves the cached test guest boots the way the acceptance tests boot it: an
# isolated libvirt network (no <forward>) with a DHCP reservation, a qcow2
# overlay on root.qcow2, direct kernel boot, a NoCloud seed ISO on a scsi cdrom
# that sets local-hostname, and the guest agent channel. The guest is observed
# only through libvirt (DHCP leases, guest agent); nothing connects to it.
# Prints timings and removes everything it created, also on failure.
set -euo pipefail

ENV_FILE=/var/cache/tfplv/env.sh
# shellcheck source=/dev/null
[[ -r "$ENV_FILE" ]] && source "$ENV_FILE"
URI="${LIBVIRT_TEST_URI:-qemu:///system}"
DOMAIN_TYPE="${LIBVIRT_TEST_DOMAIN_TYPE:-qemu}"
GUEST_DIR="$(readlink -f "${LIBVIRT_TEST_GUEST_DIR:-/var/cache/tfplv/guest/current}")"
# ~40 s on an idle 2-core machine under TCG; far more while other jobs load it.
TIMEOUT="${SMOKE_TIMEOUT:-600}"

for f in root.qcow2 vmlinuz initrd.img; do
  [[ -r "$GUEST_DIR/$f" ]] || {
    echo "missing $GUEST_DIR/$f: run scripts/build-guest-image.sh first" >&2
    exit 1
  }
done

virsh_sys() { virsh -q -c "$URI" "$@"; }
log() { printf '[smoke-guest %s] %s\n' "$(date +%T)" "$*"; }

NAME="tfplv-smoke-$$"
HOSTNAME_WANTED="smoke-$$-$RANDOM"
MAC=$(printf '52:54:00:%02x:%02x:%02x' $((RANDOM % 256)) $((RANDOM % 256)) $((RANDOM % 256)))
WORK=$(mktemp -d /var/tmp/tfplv-smoke.XXXXXX)
chmod 0755 "$WORK"
NET_DEFINED=0
DOM_DEFINED=0

# gone LIST-COMMAND: libvirtd answered and no longer lists $NAME.
gone() {
  local names
  names=$(virsh_sys "$1" --all --name 2>/dev/null) || return 1
  ! grep -qx "$NAME" <<<"$names"
}

teardown() {
  local rc=$?
  set +e
  # Retried for a minute: libvirt may still hold a job (an agent command), or
  # libvirtd may be restarting (other tests restart it on purpose).
  local try
  for try in $(seq 1 20); do
    if ((DOM_DEFINED)); then
      virsh_sys destroy "$NAME" >/dev/null 2>&1
      virsh_sys undefine "$NAME" >/dev/null 2>&1
      gone list && DOM_DEFINED=0
    fi
    if ((NET_DEFINED && !DOM_DEFINED)); then
      virsh_sys net-destroy "$NAME" >/dev/null 2>&1
      virsh_sys net-undefine "$NAME" >/dev/null 2>&1
      gone net-list && NET_DEFINED=0
    fi
    ((DOM_DEFINED || NET_DEFINED)) || break
    sleep 3
  done
  if ((rc != 0)) && [[ -s "$WORK/console.log" ]]; then
    echo "--- last lines of the guest's serial console:" >&2
    tail -n 40 "$WORK/console.log" >&2
  fi
  rm -rf "$WORK"
  if ((DOM_DEFINED || NET_DEFINED)); then
    echo "teardown left $NAME behind (domain: $DOM_DEFINED, network: $NET_DEFINED)" >&2
    rc=1
  fi
  exit "$rc"
}
trap teardown EXIT

T0=$EPOCHREALTIME
elapsed() { awk -v a="$EPOCHREALTIME" -v b="$T0" 'BEGIN{printf "%.1f", a-b}'; }

# Isolated network: a random /24 in 10.200-254.x so parallel runs rarely clash;
# a clash just means trying another one.
for attempt in 1 2 3 4 5; do
  SUBNET="10.$((200 + RANDOM % 55)).$((RANDOM % 256))"
  GUEST_IP="$SUBNET.10"
  cat >"$WORK/net.xml" <<EOF
<network>
  <name>$NAME</name>
  <ip address="$SUBNET.1" netmask="255.255.255.0">
    <dhcp>
      <range start="$SUBNET.100" end="$SUBNET.200"/>
      <host mac="$MAC" name="$HOSTNAME_WANTED" ip="$GUEST_IP"/>
    </dhcp>
  </ip>
</network>
EOF
  virsh_sys net-define "$WORK/net.xml" >/dev/null
  NET_DEFINED=1
  if virsh_sys net-start "$NAME" >/dev/null 2>"$WORK/net-start.err"; then
    break
  fi
  virsh_sys net-undefine "$NAME" >/dev/null
  NET_DEFINED=0
  ((attempt < 5)) || {
    cat "$WORK/net-start.err" >&2
    exit 1
  }
done
log "network $NAME ($SUBNET.0/24, isolated, reservation $MAC -> $GUEST_IP) up at $(elapsed)s"

qemu-img create -q -f qcow2 -F qcow2 -b "$GUEST_DIR/root.qcow2" "$WORK/disk.qcow2"
printf 'instance-id: %s\nlocal-hostname: %s\n' "$NAME" "$HOSTNAME_WANTED" >"$WORK/meta-data"
printf '#cloud-config\n{}\n' >"$WORK/user-data"
genisoimage -quiet -output "$WORK/seed.iso" -V cidata -r -J "$WORK/user-data" "$WORK/meta-data"
chmod 0644 "$WORK"/*
log "overlay disk and NoCloud seed ISO ready at $(elapsed)s"

cat >"$WORK/domain.xml" <<EOF
<domain type="$DOMAIN_TYPE">
  <name>$NAME</name>
  <memory unit="MiB">512</memory>
  <vcpu>1</vcpu>
  <os>
    <type arch="x86_64" machine="pc">hvm</type>
    <kernel>$GUEST_DIR/vmlinuz</kernel>
    <initrd>$GUEST_DIR/initrd.img</initrd>
    <cmdline>root=/dev/vda rw console=ttyS0 net.ifnames=0</cmdline>
  </os>
  <features><acpi/></features>
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>restart</on_reboot>
  <on_crash>destroy</on_crash>
  <devices>
    <disk type="file" device="disk">
      <driver name="qemu" type="qcow2"/>
      <source file="$WORK/disk.qcow2"/>
      <target dev="vda" bus="virtio"/>
    </disk>
    <disk type="file" device="cdrom">
      <driver name="qemu" type="raw"/>
      <source file="$WORK/seed.iso"/>
      <target dev="sda" bus="scsi"/>
      <readonly/>
    </disk>
    <controller type="scsi" model="virtio-scsi"/>
    <controller type="virtio-serial"/>
    <interface type="network">
      <source network="$NAME"/>
      <mac address="$MAC"/>
      <model type="virtio"/>
    </interface>
    <serial type="file">
      <source path="$WORK/console.log"/>
      <target port="0"/>
    </serial>
    <channel type="unix">
      <target type="virtio" name="org.qemu.guest_agent.0"/>
    </channel>
    <rng model="virtio">
      <backend model="random">/dev/urandom</backend>
    </rng>
    <memballoon model="none"/>
  </devices>
</domain>
EOF
virsh_sys define "$WORK/domain.xml" >/dev/null
DOM_DEFINED=1
log "domain $NAME defined at $(elapsed)s"
virsh_sys start "$NAME" >/dev/null
log "domain $NAME (type $DOMAIN_TYPE, 1 vCPU, 512 MiB) started at $(elapsed)s"

lease_ip="" agent_at="" hostname_got=""
deadline=$((SECONDS + TIMEOUT))
while ((SECONDS < deadline)); do
  if [[ -z "$lease_ip" ]]; then
    lease_ip=$(virsh_sys domifaddr "$NAME" --source lease 2>/dev/null |
      awk '$3 == "ipv4" { sub(/\/.*/, "", $4); print $4; exit }' || true)
    [[ -n "$lease_ip" ]] && log "DHCP lease $lease_ip at $(elapsed)s"
  fi
  if [[ -z "$hostname_got" ]]; then
    if out=$(virsh_sys qemu-agent-command "$NAME" '{"execute":"guest-get-host-name"}' 2>/dev/null); then
      [[ -n "$agent_at" ]] || {
        agent_at=$(elapsed)
        log "guest agent answered at ${agent_at}s: $out"
      }
      got=$(sed -n 's/.*"host-name" *: *"\([^"]*\)".*/\1/p' <<<"$out")
      if [[ "$got" == "$HOSTNAME_WANTED" ]]; then
        hostname_got=$got
        log "guest agent reports host name $got (set by cloud-init) at $(elapsed)s"
      fi
    fi
  fi
  [[ -n "$lease_ip" && -n "$hostname_got" ]] && break
  sleep 2
done

fail=0
[[ -n "$lease_ip" ]] || {
  echo "FAIL: no DHCP lease within ${TIMEOUT}s" >&2
  fail=1
}
if [[ -n "$lease_ip" && "$lease_ip" != "$GUEST_IP" ]]; then
  echo "FAIL: lease $lease_ip is not the reserved $GUEST_IP" >&2
  fail=1
fi
[[ -n "$agent_at" ]] || {
  echo "FAIL: guest agent never answered within ${TIMEOUT}s" >&2
  fail=1
}
if [[ -n "$agent_at" && -z "$hostname_got" ]]; then
  echo "FAIL: guest agent host name never became $HOSTNAME_WANTED (last: ${got:-none})" >&2
  fail=1
fi
((fail == 0)) || exit 1
log "PASS: guest booted, leased $lease_ip, agent up, hostname $hostname_got; total $(elapsed)s"
