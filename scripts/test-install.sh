#!/usr/bin/env bash
# Installs the provider the way a user does, offline, from release archives:
#
#  1. goreleaser builds an unsigned snapshot release (every target of
#     .goreleaser.yml) into dist/;
#  2. the archives are checked: one binary each, named
#     terraform-provider-libvirt_v<version>[.exe], built for the OS and CPU in
#     the archive name; SHA256SUMS covers every zip and the registry manifest;
#  3. the zips become a filesystem mirror in packed layout
#     (<mirror>/registry.opentofu.org/virtxml/libvirt/<name>.zip) and a CLI
#     configuration that knows only that mirror;
#  4. `tofu init` on examples/provider, then `tofu providers lock
#     -fs-mirror` for linux/darwin x amd64/arm64;
#  5. every h1: hash in the lock file is compared with one computed here from
#     the zips (Go's dirhash Hash1, implemented below), and zh: (the zip's
#     SHA-256) with SHA256SUMS and with any zh: the lock file records;
#  6. the installed provider must answer `tofu providers schema -json` with
#     the resource and data source types the source code registers;
#     Terraform 1.15 (and 1.11 when installed) must install the same archives
#     from the registry.terraform.io namespace of the mirror, record the same
#     h1: hashes and see the same types;
#  7. the environment roots' committed lock files are reported current or
#     STALE (an error only with STRICT_LOCKS=1).
#
# Env:
#   PROVIDER_VERSION  version to build (default: ./VERSION, else 0.1.0)
#   SOURCE=worktree   build the working tree (default); SOURCE=head builds a
#                     clean clone of HEAD, unaffected by uncommitted files
#   MIRROR_OUT=DIR    also leave the packed mirror in DIR (used by lock-roots.sh)
#   REUSE_DIST=1      skip goreleaser and use the existing dist/ (quick re-checks)
#   STRICT_LOCKS=1    fail when an environment lock file is stale
#   SIGN=0            do not sign the snapshot (default: sign with a throw-away
#                     GPG key when gpg is installed, and verify the signature)
#   TOFU, GORELEASER  tool paths
#   TERRAFORM_115     Terraform 1.15 (default /var/cache/tfplv/terraform-1.15.9,
#                     unpacked by scripts/testenv.sh); required
#   TERRAFORM         Terraform 1.11 (default: the one in PATH); optional
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOFU=${TOFU:-/var/cache/tfplv/tofu-v1.12.6/tofu}
GORELEASER=${GORELEASER:-/var/cache/tfplv/goreleaser-v2.15.1/goreleaser}
TERRAFORM=${TERRAFORM:-$(command -v terraform || true)}
TERRAFORM_115=${TERRAFORM_115:-/var/cache/tfplv/terraform-1.15.9}
PROVIDER_HOST=registry.opentofu.org
PROVIDER_NS=virtxml
PROVIDER_TYPE=libvirt
PROVIDER_ADDR=$PROVIDER_HOST/$PROVIDER_NS/$PROVIDER_TYPE
PROJECT=terraform-provider-libvirt
LOCK_PLATFORMS=(linux_amd64 linux_arm64 darwin_amd64 darwin_arm64)
# Targets that must be in the release no matter what (the lock platforms).
REQUIRED_TARGETS=("${LOCK_PLATFORMS[@]}")

if [[ -z ${PROVIDER_VERSION:-} ]]; then
  if [[ -f $ROOT/VERSION ]]; then
    PROVIDER_VERSION=$(tr -d ' \n' <"$ROOT/VERSION")
  else
    PROVIDER_VERSION=0.1.0
  fi
fi
export PROVIDER_VERSION
SOURCE=${SOURCE:-worktree}

log() { printf '[test-install %s] %s\n' "$(date +%T)" "$*" >&2; }
fail() {
  printf '[test-install] FAIL: %s\n' "$*" >&2
  exit 1
}

[[ $PROVIDER_VERSION =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] ||
  fail "PROVIDER_VERSION '$PROVIDER_VERSION' is not a semantic version"
[[ -x $TOFU ]] || fail "OpenTofu not found at $TOFU"
[[ -x $TERRAFORM_115 ]] ||
  fail "Terraform 1.15 not found at '$TERRAFORM_115': run scripts/testenv.sh (it unpacks ../shared/peers/terraform/terraform-1.15.9.xz) or set TERRAFORM_115"
[[ ${REUSE_DIST:-} == 1 || -x $GORELEASER ]] ||
  fail "goreleaser not found at $GORELEASER (make goreleaser builds it)"
command -v jq >/dev/null || fail "jq is required"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# ---------------------------------------------------------------------------
# 1. Snapshot release.
src=$ROOT
if [[ $SOURCE == head ]]; then
  log "cloning HEAD ($(git -C "$ROOT" rev-parse --short HEAD)) to build it without uncommitted files"
  git clone -q --no-hardlinks "$ROOT" "$work/src"
  src=$work/src
elif [[ $SOURCE != worktree ]]; then
  fail "SOURCE must be worktree or head"
fi
# The release always ends up in $ROOT/dist (gitignored), also when built in a
# clone, so that REUSE_DIST=1 can re-check it.
dist=$ROOT/dist

if [[ ${REUSE_DIST:-} == 1 ]]; then
  [[ -f $dist/artifacts.json ]] || fail "REUSE_DIST=1 but $dist has no release"
  log "reusing $dist"
else
  # Sign SHA256SUMS with a throw-away key when gpg is available, so that the
  # release's signing step is exercised and its signature checked below.
  sign_args=(--skip=sign)
  if [[ ${SIGN:-1} == 1 ]] && command -v gpg >/dev/null; then
    export GNUPGHOME=$work/gnupg
    mkdir -m 700 "$GNUPGHOME"
    trap 'gpgconf --kill gpg-agent 2>/dev/null; rm -rf "$work"' EXIT
    gpg --batch --quiet --passphrase '' --quick-gen-key "test-install throw-away key <test-install@invalid>" rsa2048 sign 1d 2>/dev/null
    GPG_FINGERPRINT=$(gpg --list-keys --with-colons 2>/dev/null | awk -F: '/^fpr/ {print $10; exit}')
    export GPG_FINGERPRINT
    sign_args=()
  fi
  log "goreleaser $("$GORELEASER" --version 2>/dev/null | awk '/GitVersion/{print $2}') snapshot release of $PROVIDER_VERSION${sign_args[*]:+ (unsigned)}"
  started=$SECONDS
  (cd "$src" && "$GORELEASER" release --snapshot --clean "${sign_args[@]}") >"$work/goreleaser.log" 2>&1 || {
    tail -40 "$work/goreleaser.log" >&2
    fail "goreleaser release --snapshot failed"
  }
  log "goreleaser finished in $((SECONDS - started))s"
  if [[ $src != "$ROOT" ]]; then
    rm -rf "$dist"
    cp -r "$src/dist" "$dist"
  fi
fi

sums=$dist/${PROJECT}_${PROVIDER_VERSION}_SHA256SUMS
[[ -f $sums ]] || fail "missing $sums"
mapfile -t zips < <(cd "$dist" && ls ${PROJECT}_"${PROVIDER_VERSION}"_*_*.zip 2>/dev/null | sort)
((${#zips[@]} > 0)) || fail "no archives ${PROJECT}_${PROVIDER_VERSION}_<os>_<arch>.zip in $dist"
for t in "${REQUIRED_TARGETS[@]}"; do
  [[ -f $dist/${PROJECT}_${PROVIDER_VERSION}_$t.zip ]] || fail "no archive for $t"
done

# ---------------------------------------------------------------------------
# 2. Archive contents, hashes and binary formats, computed independently of
#    OpenTofu by a small Go program (standard library only).
mkdir -p "$work/inspect"
cat >"$work/inspect/main.go" <<'GO'
// Command inspect prints, for each provider zip, its size, the h1: hash of its
// contents (Go's dirhash Hash1, the algorithm behind OpenTofu's h1: lock
// hashes), its zh: hash (SHA-256 of the zip) and the single binary's size
// and format, and fails when an archive is not a valid provider package.
package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: inspect VERSION ZIP...")
		os.Exit(2)
	}
	version, bad := os.Args[1], false
	for _, path := range os.Args[2:] {
		if err := inspect(version, path); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", filepath.Base(path), err)
			bad = true
		}
	}
	if bad {
		os.Exit(1)
	}
}

// hash1 is dirhash.Hash1: SHA-256 over lines "<hex sha256 of file>  <name>\n"
// for the files in name order, base64-encoded, prefixed "h1:".
func hash1(names []string, open func(string) ([]byte, error)) (string, error) {
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	summary := sha256.New()
	for _, name := range sorted {
		if strings.Contains(name, "\n") {
			return "", fmt.Errorf("file name %q contains a newline", name)
		}
		data, err := open(name)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(summary, "%x  %s\n", sha256.Sum256(data), name)
	}
	return "h1:" + base64.StdEncoding.EncodeToString(summary.Sum(nil)), nil
}

func inspect(version, path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	// <project>_<version>_<os>_<arch>.zip
	base := strings.TrimSuffix(filepath.Base(path), ".zip")
	parts := strings.Split(base, "_")
	if len(parts) != 4 || parts[1] != version {
		return fmt.Errorf("name is not terraform-provider-libvirt_%s_<os>_<arch>.zip", version)
	}
	goos, goarch := parts[2], parts[3]

	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		return err
	}
	files := map[string][]byte{}
	var names []string
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			return err
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return err
		}
		files[f.Name] = data
		names = append(names, f.Name)
	}
	want := "terraform-provider-libvirt_v" + version
	if goos == "windows" {
		want += ".exe"
	}
	if len(names) != 1 || names[0] != want {
		return fmt.Errorf("archive holds %q, want exactly [%s]", names, want)
	}
	if zr.File[0].Mode()&0o111 == 0 && goos != "windows" {
		return fmt.Errorf("%s is not executable in the archive (mode %v)", want, zr.File[0].Mode())
	}
	bin := files[want]
	format, err := binaryFormat(bin, goos, goarch)
	if err != nil {
		return err
	}
	h1, err := hash1(names, func(n string) ([]byte, error) { return files[n], nil })
	if err != nil {
		return err
	}
	fmt.Printf("%s\t%s_%s\t%d\t%s\t%d\t%s\t%s\tzh:%x\n",
		filepath.Base(path), goos, goarch, len(raw), want, len(bin), format, h1, sha256.Sum256(raw))
	return nil
}

// binaryFormat checks that the executable is built for goos/goarch.
func binaryFormat(bin []byte, goos, goarch string) (string, error) {
	r := bytes.NewReader(bin)
	switch goos {
	case "linux", "freebsd":
		f, err := elf.NewFile(r)
		if err != nil {
			return "", fmt.Errorf("%s binary is not ELF: %v", goos, err)
		}
		want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64, "arm": elf.EM_ARM, "386": elf.EM_386}[goarch]
		if f.Machine != want {
			return "", fmt.Errorf("ELF machine %v, want %v for %s", f.Machine, want, goarch)
		}
		wantABI := elf.ELFOSABI_NONE
		if goos == "freebsd" {
			wantABI = elf.ELFOSABI_FREEBSD
		}
		if f.OSABI != wantABI {
			return "", fmt.Errorf("ELF OS ABI %v, want %v for %s", f.OSABI, wantABI, goos)
		}
		if f.Type != elf.ET_EXEC && f.Type != elf.ET_DYN {
			return "", fmt.Errorf("ELF type %v is not an executable", f.Type)
		}
		return fmt.Sprintf("ELF/%v/%v", f.OSABI, f.Machine), nil
	case "darwin":
		f, err := macho.NewFile(r)
		if err != nil {
			return "", fmt.Errorf("darwin binary is not Mach-O: %v", err)
		}
		want := map[string]macho.Cpu{"amd64": macho.CpuAmd64, "arm64": macho.CpuArm64}[goarch]
		if f.Cpu != want || f.Type != macho.TypeExec {
			return "", fmt.Errorf("Mach-O cpu %v type %v, want %v executable", f.Cpu, f.Type, want)
		}
		return fmt.Sprintf("Mach-O/%v", f.Cpu), nil
	case "windows":
		f, err := pe.NewFile(r)
		if err != nil {
			return "", fmt.Errorf("windows binary is not PE: %v", err)
		}
		want := map[string]uint16{"amd64": pe.IMAGE_FILE_MACHINE_AMD64, "arm64": pe.IMAGE_FILE_MACHINE_ARM64}[goarch]
		if f.Machine != want {
			return "", fmt.Errorf("PE machine %#x, want %#x", f.Machine, want)
		}
		return fmt.Sprintf("PE/%#x", f.Machine), nil
	}
	return "", fmt.Errorf("unexpected OS %q", goos)
}
GO
(cd "$work/inspect" && GO111MODULE=on go run main.go "$PROVIDER_VERSION" "${zips[@]/#/$dist/}") \
  >"$work/archives.tsv" || fail "archive check failed"

printf '\n%-55s %-14s %10s %10s  %s\n' ARCHIVE PLATFORM ZIP_BYTES BIN_BYTES FORMAT >&2
while IFS=$'\t' read -r name platform zipsize _ binsize format _ _; do
  printf '%-55s %-14s %10d %10d  %s\n' "$name" "$platform" "$zipsize" "$binsize" "$format" >&2
done <"$work/archives.tsv"
echo >&2

# SHA256SUMS: every zip with the right digest, plus the registry manifest.
while IFS=$'\t' read -r name _ _ _ _ _ _ zh; do
  line=$(grep -E "  $name\$" "$sums") || fail "$name is not in $(basename "$sums")"
  [[ zh:${line%% *} == "$zh" ]] || fail "SHA256SUMS digest of $name differs from the archive"
done <"$work/archives.tsv"
manifest=${PROJECT}_${PROVIDER_VERSION}_manifest.json
line=$(grep -E "  $manifest\$" "$sums") || fail "$manifest is not in SHA256SUMS"
[[ ${line%% *} == "$(sha256sum "$ROOT/terraform-registry-manifest.json" | cut -d' ' -f1)" ]] ||
  fail "SHA256SUMS digest of $manifest differs from terraform-registry-manifest.json"
[[ $(jq -c . "$ROOT/terraform-registry-manifest.json") == '{"version":1,"metadata":{"protocol_versions":["6.0"]}}' ]] ||
  fail "terraform-registry-manifest.json must declare protocol 6.0 only"
[[ $(wc -l <"$sums") -eq $((${#zips[@]} + 1)) ]] || fail "SHA256SUMS has entries beyond the zips and the manifest: $(cut -c67- "$sums" | tr '\n' ' ')"
log "SHA256SUMS covers ${#zips[@]} archives and the manifest"
if [[ -n ${GPG_FINGERPRINT:-} && -n ${GNUPGHOME:-} && -f $sums.sig ]]; then
  gpg --batch --verify "$sums.sig" "$sums" 2>"$work/verify.log" || {
    cat "$work/verify.log" >&2
    fail "the detached signature $(basename "$sums").sig does not verify"
  }
  log "SHA256SUMS.sig is a valid detached signature by the (throw-away) release key"
elif [[ -n ${GPG_FINGERPRINT:-} && -n ${GNUPGHOME:-} && ${REUSE_DIST:-} != 1 ]]; then
  fail "goreleaser did not sign $(basename "$sums")"
fi

# ---------------------------------------------------------------------------
# 3. Packed filesystem mirror and a CLI configuration that knows only it.
mirror=$work/mirror
pkgdir=$mirror/$PROVIDER_HOST/$PROVIDER_NS/$PROVIDER_TYPE
mkdir -p "$pkgdir"
for z in "${zips[@]}"; do cp "$dist/$z" "$pkgdir/"; done
cat >"$work/tofurc" <<EOF
disable_checkpoint = true
provider_installation {
  filesystem_mirror {
    path = "$mirror"
  }
}
EOF
export TF_CLI_CONFIG_FILE=$work/tofurc TF_IN_AUTOMATION=1 CHECKPOINT_DISABLE=1
unset TF_PLUGIN_CACHE_DIR TF_CLI_ARGS TF_CLI_ARGS_init

# ---------------------------------------------------------------------------
# 4. init and providers lock, like a user with an air-gapped mirror.
cfg=$work/config
mkdir -p "$cfg"
cp "$ROOT"/examples/provider/*.tf "$cfg/"
# Pin the version under test, as a user pins a release.
sed -i -E "s|^( *)source = \"$PROVIDER_NS/$PROVIDER_TYPE\"|\1source  = \"$PROVIDER_NS/$PROVIDER_TYPE\"\n\1version = \"$PROVIDER_VERSION\"|" "$cfg/provider.tf"
grep -q "version = \"$PROVIDER_VERSION\"" "$cfg/provider.tf" || fail "could not pin the version in examples/provider/provider.tf"
(cd "$cfg" && "$TOFU" init -no-color -input=false) >"$work/init.log" 2>&1 || {
  cat "$work/init.log" >&2
  fail "tofu init from the packed mirror failed"
}
grep -q "Installed $PROVIDER_NS/$PROVIDER_TYPE v$PROVIDER_VERSION" "$work/init.log" ||
  fail "tofu init did not install $PROVIDER_NS/$PROVIDER_TYPE v$PROVIDER_VERSION: $(cat "$work/init.log")"
log "tofu init installed $PROVIDER_NS/$PROVIDER_TYPE v$PROVIDER_VERSION from the packed mirror"

platform_args=()
for p in "${LOCK_PLATFORMS[@]}"; do platform_args+=("-platform=$p"); done
(cd "$cfg" && "$TOFU" providers lock -no-color -fs-mirror="$mirror" "${platform_args[@]}") \
  >"$work/lock.log" 2>&1 || {
  cat "$work/lock.log" >&2
  fail "tofu providers lock failed"
}

# ---------------------------------------------------------------------------
# 5. Lock file hashes against the archives.
lockfile=$cfg/.terraform.lock.hcl
# The provider's block: from its header to the closing brace.
block=$(awk -v addr="\"$PROVIDER_ADDR\"" '$1 == "provider" && $2 == addr {on=1} on {print} on && /^}/ {exit}' "$lockfile")
[[ -n $block ]] || fail "no $PROVIDER_ADDR block in the lock file"
grep -qE "^  version += \"$PROVIDER_VERSION\"" <<<"$block" || fail "lock file does not record version $PROVIDER_VERSION"
mapfile -t locked_h1 < <(grep -oE '"h1:[^"]+"' <<<"$block" | tr -d '"' | sort -u)
mapfile -t locked_zh < <(grep -oE '"zh:[^"]+"' <<<"$block" | tr -d '"' | sort -u)

declare -A h1_of zh_of
while IFS=$'\t' read -r _ platform _ _ _ _ h1 zh; do
  h1_of[$platform]=$h1
  zh_of[$platform]=$zh
done <"$work/archives.tsv"
mapfile -t expected_h1 < <(for p in "${LOCK_PLATFORMS[@]}"; do echo "${h1_of[$p]}"; done | sort -u)
if [[ "${locked_h1[*]}" != "${expected_h1[*]}" ]]; then
  printf 'locked:   %s\n' "${locked_h1[@]}" >&2
  printf 'computed: %s\n' "${expected_h1[@]}" >&2
  fail "h1: hashes in the lock file differ from the archives of ${LOCK_PLATFORMS[*]}"
fi
for p in "${LOCK_PLATFORMS[@]}"; do
  log "h1 $p ${h1_of[$p]} matches the lock file"
done
# A packed filesystem mirror has no SHA256SUMS, so OpenTofu records h1: only;
# zh: hashes appear when installing from a registry. Any zh: present must
# still be one of these archives.
if ((${#locked_zh[@]} > 0)); then
  for zh in "${locked_zh[@]}"; do
    found=false
    for p in "${!zh_of[@]}"; do [[ ${zh_of[$p]} == "$zh" ]] && found=true; done
    $found || fail "lock file records $zh, which is no archive of this release"
  done
  log "${#locked_zh[@]} zh: hashes in the lock file match archives"
else
  log "lock file has no zh: hashes (expected from a filesystem mirror); zh: of every archive matched SHA256SUMS above"
fi

# ---------------------------------------------------------------------------
# 6. The installed provider serves its schema, with every registered type.
(cd "$cfg" && "$TOFU" providers schema -json) >"$work/schema.json" 2>"$work/schema.err" || {
  cat "$work/schema.err" >&2
  fail "tofu providers schema failed with the installed provider"
}
[[ $(jq -r '.provider_schemas | keys | join(",")' "$work/schema.json") == "$PROVIDER_ADDR" ]] ||
  fail "schema JSON is not keyed by $PROVIDER_ADDR only"
# The types the source registers: libvirtProvider.Resources and DataSources,
# printed by tools/typenames.
registered() {
  (cd "$src" && go run ./tools/typenames "$1") | sort -u
}
check_types() {
  local kind=$1 which=$2 key=$3 want got
  want=$(registered "$which")
  got=$(jq -r --arg a "$PROVIDER_ADDR" --arg k "$key" '.provider_schemas[$a][$k] // {} | keys[]' "$work/schema.json" | sort -u)
  [[ $got == "$want" ]] || fail "installed provider's $kind types [$(echo $got)] differ from the registered [$(echo $want)]"
  log "installed provider serves $(echo "$got" | grep -c . || true) $kind types: $(echo $got)"
}
check_types resource resources resource_schemas
check_types "data source" data-sources data_source_schemas

# The same archives must install in Terraform too, from the
# registry.terraform.io namespace of the same packed mirror (the address
# Terraform gives `virtxml/libvirt`): Terraform 1.15 always, Terraform 1.11
# when installed. Both run at the same time, each in its own configuration
# folder; each must record the same h1: hashes and see the same types.
tf_addr=registry.terraform.io/$PROVIDER_NS/$PROVIDER_TYPE
# Hard links: Terraform does not follow a symlinked directory in a mirror.
mkdir -p "$mirror/$tf_addr"
cp -l "$pkgdir"/*.zip "$mirror/$tf_addr/"
terraform_leg() {
  local name=$1 bin=$2 tfcfg=$work/config-$1 tf_h1 tf_zh zh p found
  mkdir -p "$tfcfg"
  cp "$cfg"/*.tf "$tfcfg/"
  (cd "$tfcfg" && "$bin" init -no-color -input=false &&
    "$bin" providers lock -no-color -fs-mirror="$mirror" "${platform_args[@]}") >"$work/$name-init.log" 2>&1 || {
    cat "$work/$name-init.log" >&2
    fail "$name: terraform init / providers lock from the packed mirror failed"
  }
  grep -q "Installed $PROVIDER_NS/$PROVIDER_TYPE v$PROVIDER_VERSION" "$work/$name-init.log" ||
    fail "$name: terraform init did not install $PROVIDER_NS/$PROVIDER_TYPE v$PROVIDER_VERSION: $(cat "$work/$name-init.log")"
  local block
  block=$(awk -v addr="\"$tf_addr\"" '$1 == "provider" && $2 == addr {on=1} on {print} on && /^}/ {exit}' "$tfcfg/.terraform.lock.hcl")
  [[ -n $block ]] || fail "$name: no $tf_addr block in the lock file"
  mapfile -t tf_h1 < <(grep -oE '"h1:[^"]+"' <<<"$block" | tr -d '"' | sort -u)
  [[ "${tf_h1[*]}" == "${expected_h1[*]}" ]] || fail "$name recorded other h1: hashes than the archives: ${tf_h1[*]}"
  mapfile -t tf_zh < <(grep -oE '"zh:[^"]+"' <<<"$block" | tr -d '"' | sort -u)
  for zh in "${tf_zh[@]}"; do
    found=false
    for p in "${!zh_of[@]}"; do [[ ${zh_of[$p]} == "$zh" ]] && found=true; done
    $found || fail "$name lock file records $zh, which is no archive of this release"
  done
  (cd "$tfcfg" && "$bin" providers schema -json) >"$work/$name-schema.json" 2>"$work/$name-schema.err" || {
    cat "$work/$name-schema.err" >&2
    fail "$name: terraform providers schema failed with the installed provider"
  }
  [[ $(jq -r '.provider_schemas | keys | join(",")' "$work/$name-schema.json") == "$tf_addr" ]] ||
    fail "$name: schema JSON is not keyed by $tf_addr only"
  for key in resource_schemas data_source_schemas; do
    [[ $(jq -c --arg a "$tf_addr" --arg k "$key" '.provider_schemas[$a][$k] // {} | keys' "$work/$name-schema.json") == \
      "$(jq -c --arg a "$PROVIDER_ADDR" --arg k "$key" '.provider_schemas[$a][$k] // {} | keys' "$work/schema.json")" ]] ||
      fail "$name sees other ${key%_schemas} types than OpenTofu"
  done
  log "$("$bin" version | head -1): installed from the same mirror, same h1: hashes (${#tf_zh[@]} zh:), resource and data source types"
}
declare -A terraform_bins=([terraform-1.15]=$TERRAFORM_115)
if [[ -n $TERRAFORM && -x $TERRAFORM ]]; then
  terraform_bins[terraform-1.11]=$TERRAFORM
else
  log "Terraform 1.11 not installed (TERRAFORM): only Terraform 1.15 installs the archives"
fi
started=$SECONDS
declare -A leg_pid
for name in "${!terraform_bins[@]}"; do
  terraform_leg "$name" "${terraform_bins[$name]}" &
  leg_pid[$name]=$!
done
leg_failed=()
for name in "${!leg_pid[@]}"; do wait "${leg_pid[$name]}" || leg_failed+=("$name"); done
((${#leg_failed[@]} == 0)) || fail "installing with ${leg_failed[*]} failed (see above)"
log "Terraform legs (${!terraform_bins[*]}) took $((SECONDS - started))s, in parallel"

installed=$(find "$cfg/.terraform/providers/$PROVIDER_ADDR/$PROVIDER_VERSION" -type f -name "${PROJECT}_v*")
log "installed binary $(basename "$installed"): $(stat -c %s "$installed") bytes"

# ---------------------------------------------------------------------------
# 7. Report (not fail) whether the environment roots' committed lock files
#    hold these hashes: they go stale with every change to the provider's
#    code, and `make lock-roots` refreshes them. STRICT_LOCKS=1 makes a stale
#    lock file an error (for release branches).
stale=0
for lf in "$ROOT"/environments/*/.terraform.lock.hcl; do
  [[ -f $lf ]] || continue
  rel=${lf#"$ROOT"/}
  entry=$(awk -v addr="\"$PROVIDER_ADDR\"" '$1 == "provider" && $2 == addr {on=1} on {print} on && /^}/ {exit}' "$lf")
  got_version=$(sed -nE 's/^  version += "([^"]+)".*/\1/p' <<<"$entry")
  got_h1=$(grep -oE '"h1:[^"]+"' <<<"$entry" | tr -d '"' | sort -u | tr '\n' ' ')
  if [[ $got_version == "$PROVIDER_VERSION" && $got_h1 == "$(printf '%s ' "${expected_h1[@]}")" ]]; then
    log "lock file $rel: current"
  else
    if [[ -z $got_version ]]; then
      why="no $PROVIDER_ADDR entry"
    elif [[ $got_version != "$PROVIDER_VERSION" ]]; then
      why="records version $got_version"
    else
      why="records other h1: hashes for $got_version: the provider's code changed since"
    fi
    log "lock file $rel: STALE ($why; refresh with 'make lock-roots')"
    stale=$((stale + 1))
  fi
done
if ((stale > 0)) && [[ ${STRICT_LOCKS:-} == 1 ]]; then
  fail "$stale environment lock file(s) are stale"
fi

if [[ -n ${MIRROR_OUT:-} ]]; then
  rm -rf "$MIRROR_OUT"
  mkdir -p "$(dirname "$MIRROR_OUT")"
  cp -r "$mirror" "$MIRROR_OUT"
  log "packed mirror left in $MIRROR_OUT"
fi
log "PASS: ${#zips[@]} archives, offline install of $PROVIDER_VERSION, lock hashes for ${LOCK_PLATFORMS[*]} verified"
