#!/usr/bin/env bash
# Refreshes the virtxml/libvirt entry of every environment root's
# .terraform.lock.hcl with multi-platform hashes (linux/darwin x amd64/arm64),
# produced by the same path a user takes: scripts/test-install.sh builds and
# checks the release archives and leaves them as a packed filesystem mirror,
# then `tofu providers lock -fs-mirror` records their hashes per root.
#
# Other providers' entries are left as they are: the siderolabs/talos archives
# are not available offline, so its hashes cannot be computed here.
#
#   scripts/lock-roots.sh           rewrite the lock files in place
#   scripts/lock-roots.sh --check   refresh copies in a temp dir and exit 1 when
#                                   a committed lock file is stale (shows the diff)
#
# The h1: hashes cover the provider binaries, so any change to the Go code,
# go.sum, the Go toolchain or the version makes the lock files stale; CI runs
# --check to report that, separately from validating the roots (which can use
# a refreshed copy, see LOCK_OUT).
#
# Env: PROVIDER_VERSION, SOURCE, REUSE_DIST, TOFU, GORELEASER as for
# test-install.sh; MIRROR=DIR uses an existing packed mirror instead of
# building one; LOCK_OUT=DIR (with --check) keeps the refreshed tree there.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOFU=${TOFU:-/var/cache/tfplv/tofu-v1.12.6/tofu}
PROVIDER_ADDR=registry.opentofu.org/virtxml/libvirt
LOCK_PLATFORMS=(linux_amd64 linux_arm64 darwin_amd64 darwin_arm64)

check=false
case "${1:-}" in
  --check) check=true ;;
  "") ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

log() { printf '[lock-roots %s] %s\n' "$(date +%T)" "$*" >&2; }
fail() {
  printf '[lock-roots] FAIL: %s\n' "$*" >&2
  exit 1
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cd "$ROOT"
# Environment roots: directories under environments/ whose .tf files require
# virtxml/libvirt (modules called from them are found through the roots).
mapfile -t roots < <(grep -rlE 'source *= *"((registry\.opentofu\.org|registry\.terraform\.io)/)?virtxml/libvirt"' \
  --include='*.tf' environments 2>/dev/null | xargs -r -n1 dirname | sort -u)
((${#roots[@]} > 0)) || fail "no environment root under environments/ requires virtxml/libvirt"
log "roots: ${roots[*]}"

if [[ -n ${MIRROR:-} ]]; then
  mirror=$MIRROR
  [[ -d $mirror/registry.opentofu.org/virtxml/libvirt ]] || fail "MIRROR=$mirror is not a packed mirror of virtxml/libvirt"
  log "using the existing mirror $mirror"
else
  mirror=$work/mirror
  MIRROR_OUT=$mirror "$ROOT/scripts/test-install.sh"
fi
version=$(ls "$mirror/registry.opentofu.org/virtxml/libvirt" | sed -nE 's/^terraform-provider-libvirt_([^_]+)_linux_amd64\.zip$/\1/p')
[[ -n $version ]] || fail "no linux_amd64 archive in $mirror"
[[ $(wc -l <<<"$version") -eq 1 ]] || fail "the mirror holds several versions: $version"

# The roots refer to ../../modules and similar, so they are locked inside a
# copy of the tree when checking; in place otherwise.
if $check; then
  tree=${LOCK_OUT:-$work/tree}
  rm -rf "$tree"
  mkdir -p "$tree"
  # Only what the configurations can reference: the environments and the
  # modules they call, without any .terraform directories.
  tar -C "$ROOT" --exclude='.terraform' -cf - environments $( [[ -d modules ]] && echo modules) | tar -C "$tree" -xf -
else
  tree=$ROOT
fi

cat >"$work/tofurc" <<EOF
disable_checkpoint = true
provider_installation {
  filesystem_mirror {
    path    = "$mirror"
    include = ["$PROVIDER_ADDR"]
  }
}
EOF
export TF_CLI_CONFIG_FILE=$work/tofurc TF_IN_AUTOMATION=1 CHECKPOINT_DISABLE=1
platform_args=()
for p in "${LOCK_PLATFORMS[@]}"; do platform_args+=("-platform=$p"); done

stale=()
for root in "${roots[@]}"; do
  dir=$tree/$root
  # Module sources are installed into a throw-away data dir: nothing is
  # written into the root except the lock file.
  export TF_DATA_DIR=$work/data/${root//\//_}
  (cd "$dir" && "$TOFU" get -no-color) >"$work/get.log" 2>&1 || {
    cat "$work/get.log" >&2
    fail "$root: tofu get failed"
  }
  # `providers lock` adds new hashes to an entry of the same version instead
  # of replacing them, so stale hashes would pile up: drop the entry first.
  if [[ -f $dir/.terraform.lock.hcl ]]; then
    awk -v addr="\"$PROVIDER_ADDR\"" '
      $1 == "provider" && $2 == addr {skip=1; next}
      skip && /^}/ {skip=0; next}
      !skip' "$dir/.terraform.lock.hcl" | cat -s >"$work/lock.tmp"
    cat "$work/lock.tmp" >"$dir/.terraform.lock.hcl"
  fi
  # Naming the provider locks it alone and keeps the other entries as they are.
  (cd "$dir" && "$TOFU" providers lock -no-color -fs-mirror="$mirror" "${platform_args[@]}" "$PROVIDER_ADDR") \
    >"$work/lock.log" 2>&1 || {
    cat "$work/lock.log" >&2
    fail "$root: tofu providers lock failed"
  }
  n=$(awk -v a="\"$PROVIDER_ADDR\"" '$1=="provider" && $2==a {on=1} on && /"h1:/ {n++} on && /^}/ {exit} END {print n+0}' "$dir/.terraform.lock.hcl")
  if $check; then
    if ! diff -u "$ROOT/$root/.terraform.lock.hcl" "$dir/.terraform.lock.hcl" >"$work/diff" 2>&1; then
      stale+=("$root")
      sed "s|$tree/||; s|$ROOT/||" "$work/diff" >&2
    else
      log "$root: up to date ($version, $n h1: hashes)"
    fi
  else
    log "$root: locked $PROVIDER_ADDR $version ($n h1: hashes)"
  fi
done

if $check && ((${#stale[@]} > 0)); then
  fail "stale lock files in: ${stale[*]} (run 'make lock-roots' and commit them)"
fi
