#!/usr/bin/env bash
# Builds the small Debian 12 guest the acceptance tests boot: a root filesystem
# (no partition table, root=/dev/vda) plus the kernel and initrd for a direct
# kernel boot. The result is cached by content: the key is the sha256 of this
# script and its package list, so editing either rebuilds, and nothing else does.
#
# Output: /var/cache/tfplv/guest/<key>/{root.qcow2,vmlinuz,initrd.img,packages.txt}
# and the symlink /var/cache/tfplv/guest/current (LIBVIRT_TEST_GUEST_DIR).
#
# Boot it with: kernel=vmlinuz initrd=initrd.img
#   cmdline "root=/dev/vda rw console=ttyS0 net.ifnames=0", disk vda = root.qcow2
#   (as a backing file), a virtio-serial channel org.qemu.guest_agent.0, and a
#   NoCloud seed ISO (volume label cidata) on a scsi cdrom behind a virtio-scsi
#   controller: the cloud kernel has no SATA/AHCI driver.
set -euo pipefail

CACHE_DIR=/var/cache/tfplv
GUEST_ROOT="$CACHE_DIR/guest"
SUITE=bookworm
MIRROR_URL="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
IMAGE_SIZE=2G
# python3-cffi-backend must be named: without it cloud-init stays unconfigured.
PACKAGES=linux-image-cloud-amd64,systemd-sysv,udev,cloud-init,python3-cffi-backend,qemu-guest-agent,isc-dhcp-client,ifupdown,netbase

log() { printf '[guest-image %s] %s\n' "$(date +%T)" "$*"; }

[[ $(id -u) -eq 0 ]] || {
  echo "scripts/build-guest-image.sh must run as root (debootstrap)" >&2
  exit 1
}

KEY=$( (cat "${BASH_SOURCE[0]}" && echo "$PACKAGES $SUITE $IMAGE_SIZE") | sha256sum | cut -c1-16)
OUT="$GUEST_ROOT/$KEY"

mkdir -p "$GUEST_ROOT"
chmod 0755 "$CACHE_DIR" "$GUEST_ROOT"
exec 9>"$GUEST_ROOT/.build.lock"
flock 9

# Points `current` and env.sh's LIBVIRT_TEST_GUEST_DIR at this build. env.sh
# names the resolved folder: overlays keep the backing file they were made with.
link_current() {
  ln -sfn "$KEY" "$GUEST_ROOT/current.tmp"
  mv -Tf "$GUEST_ROOT/current.tmp" "$GUEST_ROOT/current"
  if [[ -w "$CACHE_DIR/env.sh" ]]; then
    sed -i -e "s|^export LIBVIRT_TEST_GUEST_DIR=.*|export LIBVIRT_TEST_GUEST_DIR=$OUT|" \
      -e "s|^export TF_VAR_guest_dir=.*|export TF_VAR_guest_dir=$OUT|" "$CACHE_DIR/env.sh"
  fi
}

if [[ -f "$OUT/.complete" ]]; then
  link_current
  log "cached: $OUT (current -> $KEY)"
  exit 0
fi

T0=$SECONDS
WORK=$(mktemp -d /var/tmp/tfplv-guest-build.XXXXXX)
TREE="$WORK/tree"
STAGE="$WORK/out"

# debootstrap mounts /proc and /sys inside the tree; unmount anything left
# there before deleting, so a failed build never reaches the host's mounts.
cleanup() {
  local m
  for m in $(findmnt -rn -o TARGET | grep "^$WORK/" | sort -r); do
    umount -l "$m" 2>/dev/null || true
  done
  rm -rf --one-file-system "$WORK"
}
trap cleanup EXIT

log "debootstrap $SUITE (minbase + $PACKAGES)"
t=$SECONDS
debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$TREE" "$MIRROR_URL" >"$WORK/debootstrap.log" 2>&1 || {
  tail -n 30 "$WORK/debootstrap.log" >&2
  exit 1
}
log "debootstrap took $((SECONDS - t))s"

t=$SECONDS
# Only NoCloud (the seed ISO) or nothing: no probing of network metadata services.
mkdir -p "$TREE/etc/cloud/cloud.cfg.d"
cat >"$TREE/etc/cloud/cloud.cfg.d/90-tfplv-datasource.cfg" <<'EOF'
datasource_list: [ NoCloud, None ]
EOF
echo '/dev/vda / ext4 defaults,errors=remount-ro 0 1' >"$TREE/etc/fstab"
echo debian >"$TREE/etc/hostname"
printf '127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n' >"$TREE/etc/hosts"
# The guest agent unit has no [Install] section; start it with multi-user. It
# binds to the virtio-serial port org.qemu.guest_agent.0.
mkdir -p "$TREE/etc/systemd/system/multi-user.target.wants"
ln -sf /lib/systemd/system/qemu-guest-agent.service \
  "$TREE/etc/systemd/system/multi-user.target.wants/qemu-guest-agent.service"
# eth0 (net.ifnames=0) gets DHCP from cloud-init's fallback network config,
# rendered for ifupdown, unless the seed carries its own network-config.
grep -q 'source /etc/network/interfaces.d' "$TREE/etc/network/interfaces" 2>/dev/null ||
  echo 'source /etc/network/interfaces.d/*' >>"$TREE/etc/network/interfaces"
# Test guests boot under TCG on busy machines: skip work that only costs CPU
# (nested KVM modules, periodic maintenance timers).
printf 'blacklist kvm\nblacklist kvm_amd\nblacklist kvm_intel\n' >"$TREE/etc/modprobe.d/tfplv-no-kvm.conf"
for timer in apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer; do
  ln -sf /dev/null "$TREE/etc/systemd/system/$timer"
done
# Each guest generates its own identity on first boot.
: >"$TREE/etc/machine-id"
rm -f "$TREE/var/lib/dbus/machine-id"
rm -rf "$TREE/var/lib/cloud"/* "$TREE/var/cache/apt/archives"/*.deb "$TREE/var/lib/apt/lists"/* \
  "$TREE/var/log"/*.log
chroot "$TREE" dpkg-query -W -f='${Package} ${Version}\n' >"$WORK/packages.txt"
log "configured tree in $((SECONDS - t))s"

t=$SECONDS
mkdir -p "$STAGE"
kernel=$(find "$TREE/boot" -maxdepth 1 -name 'vmlinuz-*' | sort -V | tail -1)
initrd=$(find "$TREE/boot" -maxdepth 1 -name 'initrd.img-*' | sort -V | tail -1)
[[ -n "$kernel" && -n "$initrd" ]] || {
  echo "no kernel/initrd in $TREE/boot" >&2
  exit 1
}
cp "$kernel" "$STAGE/vmlinuz"
cp "$initrd" "$STAGE/initrd.img"
mv "$WORK/packages.txt" "$STAGE/packages.txt"
mke2fs -q -t ext4 -L root -d "$TREE" "$WORK/root.raw" "$IMAGE_SIZE" >/dev/null
qemu-img convert -O qcow2 "$WORK/root.raw" "$STAGE/root.qcow2"
rm -f "$WORK/root.raw"
# libvirt runs qemu as libvirt-qemu: everything must be readable by others.
chmod 0755 "$STAGE"
chmod 0644 "$STAGE"/*
cat >"$STAGE/README" <<EOF
Debian $SUITE test guest built by scripts/build-guest-image.sh (key $KEY) on $(date -u +%FT%TZ).
Direct kernel boot: kernel=vmlinuz initrd=initrd.img cmdline="root=/dev/vda rw console=ttyS0 net.ifnames=0"
Disk: root.qcow2 on vda (use as a backing file). Seed: NoCloud ISO labelled cidata on a scsi cdrom (virtio-scsi).
EOF
chmod 0644 "$STAGE/README"
touch "$STAGE/.complete"
log "image files in $((SECONDS - t))s: $(du -sh --apparent-size "$STAGE/root.qcow2" | cut -f1) root.qcow2 (apparent), $(du -sh "$STAGE/root.qcow2" | cut -f1) on disk"

rm -rf "$OUT"
mv "$STAGE" "$OUT"
link_current
log "built $OUT in $((SECONDS - T0))s (current -> $KEY)"
