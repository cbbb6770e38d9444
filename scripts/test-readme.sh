#!/usr/bin/env bash
# The README's first example ("A VM in two minutes"), applied exactly as the
# README writes it except for one line: the image URL. The test
#
#   1. takes the first ```terraform block under "## A VM in two minutes" from
#      README.md and replaces only the cloud.debian.org URL with the same file
#      name on a local HTTP server (127.0.0.1); it fails if any other line
#      differs;
#   2. prepares what the README tells a user to prepare, with the README's own
#      commands (it checks that the README still contains them): the network
#      `default` started, the pool `default`, an ed25519 key in ~/.ssh. HOME is
#      a fresh folder, so the key is the test's own; network and pool are put
#      back as they were afterwards;
#   3. runs `tofu init` and `tofu apply` in an environment without TF_VAR_* or
#      LIBVIRT_* settings, so the example's own defaults are what runs (its
#      domain type is "qemu": see the README), checks that the output `ssh`
#      names an IPv4 address and that libvirt leased that address to the
#      domain, then `tofu destroy`, and checks that nothing is left.
#
# The image served is not Debian's cloud image (this machine has no internet):
# it is the repository's test guest (scripts/build-guest-image.sh) made
# bootable by BIOS like the cloud image is: an MBR with SYSLINUX, a FAT boot
# partition holding the guest's kernel and initrd, and the guest's root file
# system as the second partition. Cached by the guest build it comes from.
#
# The example's object names (domain demo, volumes debian-12.qcow2, demo.qcow2,
# demo-seed.iso) must not exist before: the test refuses to start otherwise.
# Needs scripts/testenv.sh and scripts/build-guest-image.sh (make test runs them).
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
log() { echo "[test-readme $(date +%H:%M:%S)] $*"; }
fail() { echo "test-readme: FAIL: $*" >&2; exit 1; }

# shellcheck source=/dev/null
source /var/cache/tfplv/env.sh
URI=${LIBVIRT_TEST_URI:-qemu:///system}
GUEST_DIR=$(readlink -f "${LIBVIRT_TEST_GUEST_DIR:-/var/cache/tfplv/guest/current}")
IMAGE_NAME=debian-12-genericcloud-amd64.qcow2
UPSTREAM_URL=https://cloud.debian.org/images/cloud/bookworm/latest/$IMAGE_NAME
virsh_sys() { virsh -q -c "$URI" "$@"; }

for f in root.qcow2 vmlinuz initrd.img; do
  [[ -r $GUEST_DIR/$f ]] || fail "missing $GUEST_DIR/$f: run scripts/build-guest-image.sh first"
done

work=$(mktemp -d /var/tmp/tfplv-test-readme.XXXXXX)
chmod 0755 "$work"
http_pid="" created_pool=false started_net=false applied=false
t0=$SECONDS

# ---- the README's block, one line changed --------------------------------

readme_block() {
  awk '
    /^## A VM in two minutes/ {section=1; next}
    section && /^## / {exit}
    section && /^```terraform *$/ {on=1; next}
    on && /^```/ {exit}
    on {print}' "$top/README.md"
}
mkdir -p "$work/config"
readme_block >"$work/readme.tf"
[[ -s $work/readme.tf ]] || fail "README.md has no \`\`\`terraform block under '## A VM in two minutes'"
[[ $(grep -cF "\"$UPSTREAM_URL\"" "$work/readme.tf") == 1 ]] ||
  fail "the README's example no longer names $UPSTREAM_URL exactly once: update $0"

# ---- the image, served on loopback under the cloud image's file name -----

# bootable_image OUT: the test guest as a BIOS-bootable disk (see the header).
bootable_image() {
  local out=$1 b=$work/image fat_mib=96 root_bytes root_start_mib disk_mib
  mkdir -p "$b"
  if ! command -v syslinux >/dev/null || ! command -v mcopy >/dev/null ||
    ! command -v mkfs.vfat >/dev/null || ! command -v sfdisk >/dev/null ||
    [[ ! -r /usr/lib/syslinux/mbr/mbr.bin ]]; then
    log "installing syslinux, mtools, dosfstools and fdisk (apt)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      syslinux syslinux-common mtools dosfstools fdisk >"$b/apt.log" 2>&1 || {
      cat "$b/apt.log" >&2
      fail "apt-get install failed"
    }
  fi
  # The guest's root file system names /dev/vda as root; here it is the
  # second partition.
  qemu-img convert -O raw "$GUEST_DIR/root.qcow2" "$b/root.raw"
  printf '/dev/vda2 / ext4 defaults,errors=remount-ro 0 1\n' >"$b/fstab"
  debugfs -w -R "rm /etc/fstab" "$b/root.raw" >/dev/null 2>&1
  debugfs -w -R "write $b/fstab /etc/fstab" "$b/root.raw" >/dev/null 2>&1
  debugfs -R "cat /etc/fstab" "$b/root.raw" 2>/dev/null | grep -q '^/dev/vda2 / ' ||
    fail "could not write /etc/fstab into the guest's root file system"
  cat >"$b/syslinux.cfg" <<'EOF'
DEFAULT debian
PROMPT 0
TIMEOUT 0
LABEL debian
  KERNEL vmlinuz
  APPEND initrd=initrd.img root=/dev/vda2 rw console=tty0 console=ttyS0 net.ifnames=0
EOF
  mkfs.vfat -C -n BOOT "$b/boot.fat" $((fat_mib * 1024)) >/dev/null
  mcopy -i "$b/boot.fat" "$GUEST_DIR/vmlinuz" "$GUEST_DIR/initrd.img" "$b/syslinux.cfg" ::/
  syslinux --install "$b/boot.fat"
  root_bytes=$(stat -c %s "$b/root.raw")
  root_start_mib=$((1 + fat_mib))
  disk_mib=$((root_start_mib + (root_bytes + 1048575) / 1048576))
  truncate -s "${disk_mib}M" "$b/disk.raw"
  sfdisk -q "$b/disk.raw" <<EOF
label: dos
start=1MiB, size=${fat_mib}MiB, type=c, bootable
start=${root_start_mib}MiB, type=83
EOF
  dd if=/usr/lib/syslinux/mbr/mbr.bin of="$b/disk.raw" bs=440 count=1 conv=notrunc status=none
  dd if="$b/boot.fat" of="$b/disk.raw" bs=1M seek=1 conv=notrunc status=none
  dd if="$b/root.raw" of="$b/disk.raw" bs=1M seek="$root_start_mib" conv=notrunc,sparse status=none
  qemu-img convert -O qcow2 "$b/disk.raw" "$out.tmp"
  mv -f "$out.tmp" "$out"
  rm -rf "$b"
}

cache=/var/cache/tfplv/readme-image/$(basename "$GUEST_DIR")-$(sed -n '/^bootable_image()/,/^}/p' "$0" | sha256sum | cut -c1-12)
if [[ ! -s $cache/$IMAGE_NAME ]]; then
  t=$SECONDS
  mkdir -p "$cache"
  bootable_image "$cache/$IMAGE_NAME"
  log "built $cache/$IMAGE_NAME from $GUEST_DIR in $((SECONDS - t))s"
fi

# A port the kernel picks: python binds port 0 and prints the one it got.
python3 -u -c '
import functools, http.server, sys
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
print(server.server_address[1], flush=True)
server.serve_forever()' "$cache" >"$work/http.port" 2>"$work/http.log" &
http_pid=$!
for _ in $(seq 50); do [[ -s $work/http.port ]] && break; sleep 0.1; done
port=$(head -1 "$work/http.port")
[[ $port =~ ^[0-9]+$ ]] || fail "the local HTTP server did not start: $(cat "$work/http.log")"
local_url=http://127.0.0.1:$port/$IMAGE_NAME
curl -fsI "$local_url" >/dev/null || fail "$local_url does not answer"

sed "s|\"$UPSTREAM_URL\"|\"$local_url\"|" "$work/readme.tf" >"$work/config/main.tf"
changed=$(diff "$work/readme.tf" "$work/config/main.tf" | grep -c '^[<>]' || true)
[[ $changed == 2 ]] || fail "more than the URL line differs from the README ($changed lines)"
log "README block: $(wc -l <"$work/readme.tf") lines, only the URL changed (now $local_url)"

# ---- what the README tells a user to prepare ------------------------------

# The README's preparation commands, word for word; a README that changes
# them fails here until this test changes with it.
net_cmd='virsh net-start default'
pool_cmd='virsh pool-define-as default dir --target /var/lib/libvirt/images && virsh pool-start default'
key_cmd='ssh-keygen -t ed25519'
for c in "$net_cmd" "$pool_cmd" "$key_cmd"; do
  grep -qF "$c" "$top/README.md" || fail "README.md no longer says '$c': update $0"
done

example_volumes=(debian-12.qcow2 demo.qcow2 demo-seed.iso)
leftovers() {
  local found="" v
  virsh_sys dominfo demo >/dev/null 2>&1 && found+=" domain demo"
  if virsh_sys pool-info default >/dev/null 2>&1; then
    virsh_sys pool-refresh default >/dev/null 2>&1 || true
    for v in "${example_volumes[@]}"; do
      virsh_sys vol-info --pool default "$v" >/dev/null 2>&1 && found+=" volume default/$v"
    done
  fi
  for v in /var/lib/libvirt/images/cloudinit/demo-seed*; do
    [[ -e $v ]] && found+=" $v"
  done
  echo "$found"
}
[[ -z $(leftovers) ]] || fail "objects with the README example's names exist already:$(leftovers)"
# The provider writes the seed ISO into this folder (as root) and makes it
# when missing; the test removes it again if it made it and it is empty.
seed_dir=/var/lib/libvirt/images/cloudinit
seed_dir_existed=false
[[ -d $seed_dir ]] && seed_dir_existed=true

cleanup() {
  local rc=$? v
  set +e
  if $applied && [[ -d $work/config/.terraform ]]; then
    log "cleanup: tofu destroy"
    (cd "$work/config" && tofu_env "$TOFU" destroy -auto-approve -no-color >"$work/destroy-cleanup.log" 2>&1)
  fi
  # What a failed destroy left: the names were free when the test started.
  virsh_sys destroy demo >/dev/null 2>&1
  virsh_sys undefine demo --nvram >/dev/null 2>&1 || virsh_sys undefine demo >/dev/null 2>&1
  for v in "${example_volumes[@]}"; do virsh_sys vol-delete --pool default "$v" >/dev/null 2>&1; done
  $seed_dir_existed || rmdir "$seed_dir" 2>/dev/null
  if $created_pool; then
    virsh_sys pool-destroy default >/dev/null 2>&1
    virsh_sys pool-undefine default >/dev/null 2>&1
    log "cleanup: pool default removed again (the test defined it)"
  fi
  if $started_net; then
    # Stop it only while no other domain uses it.
    if virsh_sys list --name | while read -r d; do [[ -n $d ]] && virsh_sys domiflist "$d"; done | awk '$3 == "default"' | grep -q .; then
      log "cleanup: network default left running: another domain uses it"
    else
      virsh_sys net-destroy default >/dev/null 2>&1
      log "cleanup: network default stopped again (the test started it)"
    fi
  fi
  [[ -n $http_pid ]] && kill "$http_pid" 2>/dev/null
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT

if [[ $(virsh_sys net-info default 2>/dev/null | awk '$1 == "Active:" {print $2}') != yes ]]; then
  log "README: $net_cmd"
  virsh net-start default >/dev/null
  started_net=true
fi
if ! virsh_sys pool-info default >/dev/null 2>&1; then
  log "README: $pool_cmd"
  virsh pool-define-as default dir --target /var/lib/libvirt/images >/dev/null && virsh pool-start default >/dev/null
  created_pool=true
fi
home=$work/home
mkdir -p "$home"
log "README: $key_cmd (HOME=$home)"
# ssh-keygen's default path is under the passwd entry's home, not $HOME:
# the test names the file (and makes ~/.ssh, as ssh-keygen does there).
mkdir -m 0700 "$home/.ssh"
ssh-keygen -q -t ed25519 -N '' -f "$home/.ssh/id_ed25519" </dev/null

# ---- tofu init, apply, output, destroy -----------------------------------

# The provider built from this checkout, in a mirror of the test's own (other
# checkouts install into the shared one).
MIRROR_DIR=$work/mirror CLI_CONFIG=$work/tofurc bash "$top/scripts/install-local-provider.sh" >"$work/install.log" 2>&1 || {
  cat "$work/install.log" >&2
  fail "install-local-provider.sh failed"
}
# A user's environment: no TF_VAR_*, no LIBVIRT_DEFAULT_URI from env.sh.
tofu_env() {
  env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$home" TF_CLI_CONFIG_FILE="$work/tofurc" \
    TF_IN_AUTOMATION=1 CHECKPOINT_DISABLE=1 "$@"
}
cd "$work/config"
tofu_env "$TOFU" init -no-color >"$work/init.log" 2>&1 || {
  cat "$work/init.log" >&2
  fail "tofu init failed"
}
log "tofu apply (the guest boots under the example's domain type; the address waits up to 5m)"
t=$SECONDS
applied=true
tofu_env "$TOFU" apply -auto-approve -no-color >"$work/apply.log" 2>&1 || {
  tail -n 40 "$work/apply.log" >&2
  fail "tofu apply failed after $((SECONDS - t))s"
}
apply_s=$((SECONDS - t))
ssh_out=$(tofu_env "$TOFU" output -raw ssh)
log "applied in ${apply_s}s; output ssh = \"$ssh_out\""
[[ $ssh_out =~ ^ssh\ debian@([0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3})$ ]] ||
  fail "output ssh is not 'ssh debian@<IPv4>': '$ssh_out'"
ip=${BASH_REMATCH[1]}
leased=$(virsh_sys domifaddr demo --source lease | awk '$3 == "ipv4" {sub(/\/.*/, "", $4); print $4}')
grep -qx "$ip" <<<"$leased" || fail "libvirt leased [$leased] to domain demo, not $ip"
domain_type=$(virsh_sys dumpxml demo | sed -n "s/^<domain type='\([a-z]*\)'.*/\1/p")
log "libvirt leased $ip to domain demo (type $domain_type)"

t=$SECONDS
tofu_env "$TOFU" destroy -auto-approve -no-color >"$work/destroy.log" 2>&1 || {
  tail -n 40 "$work/destroy.log" >&2
  fail "tofu destroy failed"
}
applied=false
log "destroyed in $((SECONDS - t))s"
left=$(leftovers)
[[ -z $left ]] || fail "tofu destroy left:$left"
[[ -z $(tofu_env "$TOFU" state list) ]] || fail "the state still lists resources after destroy"
log "PASS: README example applied (only the URL changed), ssh output $ip (leased), destroyed, nothing left; total $((SECONDS - t0))s"
