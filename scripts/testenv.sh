#!/usr/bin/env bash
# Prepares this machine (Debian 12, root, no systemd) for the provider's tests:
# packages, a running libvirtd, the KVM-or-TCG decision, the `tfacc` storage
# pool, a cached OpenTofu build and /var/cache/tfplv/env.sh with the exports the
# tests read. Safe to run any number of times: every step checks before it acts.
set -euo pipefail

CACHE_DIR=/var/cache/tfplv
TOFU_VERSION=v1.12.6
TOFU_BIN="$CACHE_DIR/tofu-$TOFU_VERSION/tofu"
MIRROR_DIR="${MIRROR_DIR:-$CACHE_DIR/mirror}"
POOL_NAME=tfacc
POOL_DIR=/var/tmp/tfacc-pool
LIBVIRT_URI=qemu:///system
ENV_FILE="$CACHE_DIR/env.sh"
TEST_CLI_CONFIG="$CACHE_DIR/tofurc-test"
PACKAGES=(libvirt-daemon-system libvirt-clients qemu-system-x86 qemu-utils dnsmasq-base
  openssh-server genisoimage debootstrap e2fsprogs iproute2 xorriso util-linux ca-certificates
  git make procps jq bc ovmf swtpm swtpm-tools
  syslinux syslinux-common mtools dosfstools fdisk)

log() { printf '[testenv %s] %s\n' "$(date +%T)" "$*"; }

# step NAME CMD...: runs one step and prints how long it took.
step() {
  local name=$1 started=$EPOCHREALTIME
  shift
  "$@"
  awk -v n="$name" -v a="$EPOCHREALTIME" -v b="$started" 'BEGIN{printf "[testenv] step %-10s %6.1fs\n", n, a-b}'
}

# virsh_sys runs virsh against the system daemon, waiting out a libvirtd restart
# (some connection tests restart it on purpose) instead of failing the step.
virsh_sys() {
  local try err rc
  for try in $(seq 1 30); do
    # stdout passes through (fd 3); stderr is kept to tell a restart from a real error.
    if { err=$(virsh -q -c "$LIBVIRT_URI" "$@" 2>&1 1>&3 3>&-); } 3>&1; then
      return 0
    else
      rc=$?
    fi
    if [[ "$err" != *"failed to connect to the hypervisor"* && "$err" != *"client socket is closed"* ]]; then
      [[ -n "$err" ]] && printf '%s\n' "$err" >&2
      return "$rc"
    fi
    sleep 1
  done
  printf '%s\n' "$err" >&2
  return "$rc"
}

ensure_packages() {
  local missing=() p
  for p in "${PACKAGES[@]}"; do
    [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" == 'install ok installed' ]] || missing+=("$p")
  done
  if ((${#missing[@]} == 0)); then
    log "packages: all present"
    return
  fi
  log "packages: installing ${missing[*]}"
  # Third-party lists on this machine may be unreachable; Debian's are what matter.
  apt-get update -qq || log "apt-get update reported errors (continuing with what it fetched)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

ensure_libvirtd() {
  mkdir -p /var/run/libvirt /var/log/libvirt
  ensure_kvm_device_mode
  ensure_swtpm_localca
  if ! pgrep -x virtlogd >/dev/null; then
    log "starting virtlogd"
    virtlogd -d
  fi
  if ! pgrep -x libvirtd >/dev/null; then
    log "starting libvirtd"
    libvirtd -d
  fi
  local i version
  for i in $(seq 1 60); do
    if version=$(virsh -q -c "$LIBVIRT_URI" version 2>/dev/null); then
      log "libvirtd answers: $(sed -n 's/^Running hypervisor: *//p' <<<"$version")"
      ensure_no_outside_route
      return
    fi
    sleep 0.5
  done
  echo "libvirtd did not answer on $LIBVIRT_URI within 30s" >&2
  exit 1
}

# Without udev, /dev/kvm stays root-only (0600). libvirt's capability probe (as
# root) then sees KVM while its validity check (as libvirt-qemu) does not, so it
# re-probes QEMU on every lookup: each define/start waits minutes under load.
# Debian's udev rule gives the device to group kvm, mode 0660; do the same.
# swtpm_setup runs as user tss and needs the local CA folder (and its lock
# file) writable; a first use as root leaves them root-owned.
ensure_swtpm_localca() {
  id tss >/dev/null 2>&1 || return 0
  mkdir -p /var/lib/swtpm-localca
  chown -R tss:root /var/lib/swtpm-localca
  chmod 0750 /var/lib/swtpm-localca
}

ensure_kvm_device_mode() {
  [[ -c /dev/kvm ]] || return 0
  getent group kvm >/dev/null || return 0
  if [[ "$(stat -c '%G %a' /dev/kvm)" != "kvm 660" ]]; then
    chgrp kvm /dev/kvm
    chmod 0660 /dev/kvm
    log "/dev/kvm: group kvm, mode 0660 (as Debian's udev rule sets it)"
  fi
}

# Test guests live on isolated networks only; the NAT'ed `default` network would
# route to the outside, so it is kept stopped and never autostarted.
ensure_no_outside_route() {
  local info
  # (Captured first: grep -q closing the pipe early would fail it under pipefail.)
  if info=$(virsh_sys net-info default 2>/dev/null); then
    if [[ "$info" =~ Autostart:\ +yes ]]; then
      virsh_sys net-autostart default --disable >/dev/null
      log "disabled autostart of libvirt's NAT network 'default'"
    fi
    if [[ "$info" =~ Active:\ +yes ]]; then
      virsh_sys net-destroy default >/dev/null
      log "stopped libvirt's NAT network 'default' (tests use isolated networks)"
    fi
  fi
}

# KVM: /dev/kvm may exist while KVM guests never run (a kvm guest spins at 100%
# system CPU and prints nothing, even though tiny real-mode code does run), so
# the probe boots a real Linux kernel straight to its serial console, as the
# user libvirt runs qemu as: once under TCG (proves the probe itself works) and
# once under KVM. Only the kernel banner from the KVM run means "kvm".
DOMAIN_TYPE=qemu

# probe_kernel prints the path of a kernel the probe can boot: the guest image's
# when it is built, otherwise one extracted from Debian's cloud kernel package.
probe_kernel() {
  local cached="$CACHE_DIR/kvm-probe/vmlinuz" dir pkg
  if [[ -r "$CACHE_DIR/guest/current/vmlinuz" ]]; then
    echo "$CACHE_DIR/guest/current/vmlinuz"
    return
  fi
  if [[ ! -s "$cached" ]]; then
    dir=$(mktemp -d /var/tmp/tfplv-kernel.XXXXXX)
    pkg=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null | sed -n '0,/^ *Depends: linux-image-/s/^ *Depends: \(linux-image-[^ ]*\)/\1/p')
    if [[ -z "$pkg" ]]; then
      apt-get update -qq >/dev/null 2>&1 || true
      pkg=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null | sed -n '0,/^ *Depends: linux-image-/s/^ *Depends: \(linux-image-[^ ]*\)/\1/p')
    fi
    [[ -n "$pkg" ]] && (cd "$dir" && apt-get download -q "$pkg" >/dev/null 2>&1) || true
    if compgen -G "$dir/*.deb" >/dev/null; then
      mkdir -p "$(dirname "$cached")"
      dpkg-deb --fsys-tarfile "$dir"/*.deb | tar -x --wildcards -O './boot/vmlinuz-*' >"$cached.tmp" &&
        mv -f "$cached.tmp" "$cached"
    fi
    rm -rf "$dir"
  fi
  [[ -s "$cached" ]] && chmod 0644 "$cached" && echo "$cached"
}

probe_kvm() {
  local dir user kernel msg marker='Linux version' key result_file="$CACHE_DIR/kvm-probe/result"
  user=libvirt-qemu
  id "$user" >/dev/null 2>&1 || user=root
  if [[ ! -e /dev/kvm ]]; then
    log "KVM probe: /dev/kvm missing; using qemu (TCG)"
    DOMAIN_TYPE=qemu
    return
  fi
  # The answer only changes with the host kernel, QEMU or the device's access:
  # reuse it unless one of those changed (TFPLV_KVM_REPROBE=1 forces a probe).
  key="$(uname -r)|$(qemu-system-x86_64 --version | sed -n 1p)|$(stat -c '%G %a' /dev/kvm)|$user"
  if [[ -z "${TFPLV_KVM_REPROBE:-}" && -r "$result_file" && "$(head -1 "$result_file")" == "$key" ]]; then
    DOMAIN_TYPE=$(sed -n 2p "$result_file")
    log "KVM probe: cached result $DOMAIN_TYPE ($(sed -n 3p "$result_file"))"
    return
  fi
  if ! kernel=$(probe_kernel) || [[ -z "$kernel" ]]; then
    log "KVM probe: no kernel to boot (Debian's cloud kernel package unavailable); using qemu (TCG)"
    DOMAIN_TYPE=qemu
    return
  fi
  dir=$(mktemp -d /var/tmp/tfplv-kvmprobe.XXXXXX)
  chmod 0755 "$dir"

  run_probe() { # ACCEL SECONDS -> 0 when the kernel banner reached the serial log
    local accel=$1 secs=$2 out="$dir/serial-$1.log" pid i
    : >"$out"
    chown "$user" "$out"
    # setpriv execs qemu itself, so $! is qemu and the kill below reaches it.
    setpriv --reuid="$user" --regid="$(id -g "$user")" --init-groups qemu-system-x86_64 \
      -accel "$accel" -m 256 -nodefaults -display none -no-reboot -serial "file:$out" \
      -kernel "$kernel" -append "console=ttyS0 panic=-1" >"$dir/qemu-$accel.out" 2>&1 &
    pid=$!
    for i in $(seq 1 $((secs * 4))); do
      grep -q "$marker" "$out" 2>/dev/null && break
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.25
    done
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    grep -q "$marker" "$out" 2>/dev/null
  }

  if ! run_probe tcg 30; then
    log "KVM probe: control boot under TCG printed no kernel banner ($(head -c 300 "$dir/qemu-tcg.out" | tr '\n' ' ')); using qemu"
    DOMAIN_TYPE=qemu
  elif run_probe kvm 15; then
    log "KVM probe: kernel banner under KVM as $user; using kvm"
    DOMAIN_TYPE=kvm
  else
    msg=$(grep -v warning "$dir/qemu-kvm.out" | tr '\n' ' ' | cut -c1-200 || true)
    log "KVM probe: KVM run as $user printed no kernel banner within 15s (${msg:-qemu said nothing: the guest spins}); using qemu (TCG)"
    DOMAIN_TYPE=qemu
  fi
  rm -rf "$dir"
  mkdir -p "$(dirname "$result_file")"
  printf '%s\n%s\n%s\n' "$key" "$DOMAIN_TYPE" "probed $(date -u +%FT%TZ)" >"$result_file"
}

ensure_pool() {
  mkdir -p "$POOL_DIR"
  chmod 0755 "$POOL_DIR"
  if ! virsh_sys pool-info "$POOL_NAME" >/dev/null 2>&1; then
    log "defining storage pool $POOL_NAME at $POOL_DIR"
    virsh_sys pool-define-as "$POOL_NAME" dir --target "$POOL_DIR" >/dev/null
    virsh_sys pool-build "$POOL_NAME" >/dev/null
  fi
  virsh_sys pool-autostart "$POOL_NAME" >/dev/null 2>&1 || true
  local target
  target=$(virsh_sys pool-dumpxml "$POOL_NAME" | sed -n 's:.*<path>\(.*\)</path>.*:\1:p' | sed -n 1p)
  if [[ -n "$target" && ! -d "$target" ]]; then
    log "pool $POOL_NAME: folder $target vanished; recreating"
    virsh_sys pool-destroy "$POOL_NAME" >/dev/null 2>&1 || true
    mkdir -p "$target"
    chmod 0755 "$target"
  fi
  if [[ ! "$(virsh_sys pool-info "$POOL_NAME")" =~ State:\ +running ]]; then
    virsh_sys pool-start "$POOL_NAME" >/dev/null
  fi
  # A refresh is refused while tests upload into the pool; it is only a nicety.
  virsh_sys pool-refresh "$POOL_NAME" >/dev/null 2>&1 || log "pool $POOL_NAME busy (uploads running): refresh skipped"
  log "pool $POOL_NAME running at ${target:-$POOL_DIR}"
}

# The caller's TF_CLI_CONFIG_FILE may name a missing file; tofu would warn.
# (Output captured whole: `| head -1` could end tofu by SIGPIPE and, under
# pipefail, make a working binary look broken.)
tofu_version() {
  local out
  out=$(TF_CLI_CONFIG_FILE=/dev/null CHECKPOINT_DISABLE=1 "$TOFU_BIN" version 2>/dev/null) || return 1
  out=${out%%$'\n'*}
  [[ -n "$out" ]] && echo "$out"
}

ensure_tofu() {
  if [[ -x "$TOFU_BIN" ]] && tofu_version >/dev/null; then
    log "tofu cached: $(tofu_version)"
    return
  fi
  # `go install` refuses OpenTofu's module (replace directives), so build it
  # inside the downloaded module folder instead.
  # Another run (or a hand-started build) may be producing it right now.
  exec 9>"$CACHE_DIR/.tofu-build.lock"
  flock 9
  while pgrep -f "go build .*-o $TOFU_BIN( |$)" >/dev/null; do
    log "waiting for a running build of $TOFU_BIN"
    sleep 10
  done
  if [[ -x "$TOFU_BIN" ]] && tofu_version >/dev/null; then
    log "tofu cached: $(tofu_version)"
    return
  fi
  log "building OpenTofu $TOFU_VERSION (once; several minutes on 2 cores)"
  local moddir tmp
  GOFLAGS=-mod=mod go mod download "github.com/opentofu/opentofu@$TOFU_VERSION"
  moddir="$(go env GOMODCACHE)/github.com/opentofu/opentofu@$TOFU_VERSION"
  mkdir -p "$(dirname "$TOFU_BIN")"
  tmp="$TOFU_BIN.tmp.$$"
  (cd "$moddir" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath \
    -ldflags "-s -w -X github.com/opentofu/opentofu/version.dev=no" -o "$tmp" ./cmd/tofu)
  mv -f "$tmp" "$TOFU_BIN"
  log "tofu built: $(tofu_version)"
}

# TFLint for `make lint` and the ruleset's tests, built from the Go module
# proxy by scripts/install-tflint.sh (which pins the version).
TFLINT_BIN=""
ensure_tflint() {
  local out
  TFLINT_BIN=$(bash "$(dirname "${BASH_SOURCE[0]}")/install-tflint.sh")
  out=$("$TFLINT_BIN" --version)
  log "tflint: ${out%%$'\n'*}"
}

# Terraform 1.15.9 (list resources, `terraform query`, resource identity,
# actions) for the tests of those features and the Terraform legs of the
# matrix: the build the project's shared folder holds (its README says how it
# was made), checked against its SHA256SUMS and unpacked once.
TERRAFORM_115_BIN="$CACHE_DIR/terraform-1.15.9"
ensure_terraform_115() {
  local src
  src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/../shared/peers/terraform"
  if [[ ! -x "$TERRAFORM_115_BIN" ]]; then
    [[ -f "$src/terraform-1.15.9.xz" ]] || { log "no $src/terraform-1.15.9.xz"; return 1; }
    xz -dc "$src/terraform-1.15.9.xz" >"$TERRAFORM_115_BIN.tmp"
    local want got
    want=$(awk '{print $1; exit}' "$src/SHA256SUMS")
    got=$(sha256sum "$TERRAFORM_115_BIN.tmp" | awk '{print $1}')
    [[ "$want" == "$got" ]] || { log "terraform 1.15.9: digest $got, want $want"; rm -f "$TERRAFORM_115_BIN.tmp"; return 1; }
    chmod +x "$TERRAFORM_115_BIN.tmp" && mv -f "$TERRAFORM_115_BIN.tmp" "$TERRAFORM_115_BIN"
  fi
  log "$("$TERRAFORM_115_BIN" version | head -1)"
}

write_env() {
  mkdir -p "$MIRROR_DIR"
  # Acceptance tests run the provider in-process (reattach); the mirror serves
  # any stand-in plugins other tests need. No network: no direct installation.
  cat >"$TEST_CLI_CONFIG" <<EOF
# Written by scripts/testenv.sh: CLI configuration for acceptance tests.
disable_checkpoint = true
provider_installation {
  filesystem_mirror {
    path = "$MIRROR_DIR"
  }
}
EOF
  # The resolved folder, not the `current` link: a rebuilt image must not change
  # the backing file under overlays that tests already created.
  local guest_dir="$CACHE_DIR/guest/current"
  [[ -d "$guest_dir" ]] && guest_dir=$(readlink -f "$guest_dir")
  cat >"$ENV_FILE.tmp" <<EOF
# Written by scripts/testenv.sh on $(date -u +%FT%TZ). Source it before running tests.
export TOFU=$TOFU_BIN
export TFLINT=$TFLINT_BIN
export TERRAFORM_115=$TERRAFORM_115_BIN
export TF_ACC_TERRAFORM_PATH=$TOFU_BIN
export TF_ACC_PROVIDER_NAMESPACE=virtxml
export TF_ACC_PROVIDER_HOST=registry.opentofu.org
export TF_CLI_CONFIG_FILE=$TEST_CLI_CONFIG
export CHECKPOINT_DISABLE=1
export MIRROR_DIR=$MIRROR_DIR
export LIBVIRT_TEST_URI=$LIBVIRT_URI
export LIBVIRT_TEST_POOL=$POOL_NAME
export LIBVIRT_TEST_DOMAIN_TYPE=$DOMAIN_TYPE
export LIBVIRT_TEST_GUEST_DIR=$guest_dir
# The same values for configurations that declare them as variables.
export TF_VAR_libvirt_uri=$LIBVIRT_URI
export TF_VAR_pool=$POOL_NAME
export TF_VAR_domain_type=$DOMAIN_TYPE
export TF_VAR_guest_dir=$guest_dir
EOF
  mv -f "$ENV_FILE.tmp" "$ENV_FILE"
  log "wrote $ENV_FILE (LIBVIRT_TEST_DOMAIN_TYPE=$DOMAIN_TYPE)"
}

main() {
  [[ $(id -u) -eq 0 ]] || {
    echo "scripts/testenv.sh must run as root" >&2
    exit 1
  }
  mkdir -p "$CACHE_DIR"
  local t0=$SECONDS
  step packages ensure_packages
  step libvirtd ensure_libvirtd
  step kvm-probe probe_kvm
  step pool ensure_pool
  step tofu ensure_tofu
  step tflint ensure_tflint
  step terraform-1.15 ensure_terraform_115
  step env-file write_env
  log "ready in $((SECONDS - t0))s; run: source $ENV_FILE"
}

main "$@"
