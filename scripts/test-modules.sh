#!/usr/bin/env bash
# Module tests, offline: builds the provider and the siderolabs/talos schema
# stand-in (tools/talos-standin) into a private filesystem mirror, then for
# each tool (OpenTofu, Terraform 1.11, Terraform 1.15): `test` on
# modules/libvirt-vm and modules/talos-cluster (mock providers), `validate` on
# every environment root (and `test` on a root that has a tests/ folder), and
# `fmt -check`. Each tool runs in its own copy of modules/ and environments/,
# so their .terraform folders and lock files never mix and the checkout stays
# clean; that is also why the tools' legs can run at the same time (they share
# only the read-only mirror). Prints each tool's own summary line per module.
#
# Env: TOFU (default /var/cache/tfplv/tofu-v1.12.6/tofu), TERRAFORM (Terraform
# 1.11, default terraform in PATH), TERRAFORM_115 (Terraform 1.15, default
# /var/cache/tfplv/terraform-1.15.9, unpacked by scripts/testenv.sh),
# MODULES_TEST_TOOLS (default "tofu terraform terraform-1.15"),
# MODULES_TEST_PARALLEL (default 1: the legs run at the same time; 0: one
# after the other), WORK_DIR (default: a new temporary folder, removed at the
# end unless KEEP_WORK=1).
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
TOFU="${TOFU:-/var/cache/tfplv/tofu-v1.12.6/tofu}"
TERRAFORM="${TERRAFORM:-$(command -v terraform || echo /usr/local/bin/terraform)}"
TERRAFORM_115="${TERRAFORM_115:-/var/cache/tfplv/terraform-1.15.9}"
TOOLS="${MODULES_TEST_TOOLS:-tofu terraform terraform-1.15}"
PARALLEL="${MODULES_TEST_PARALLEL:-1}"
MODULES=(libvirt-vm talos-cluster)
ROOTS=(lab talos-lab production)
TALOS_VERSION=0.11.0
HOSTS=(registry.opentofu.org registry.terraform.io)

WORK_DIR="${WORK_DIR:-$(mktemp -d /tmp/test-modules.XXXXXX)}"
mkdir -p "$WORK_DIR"
if [[ "${KEEP_WORK:-0}" != 1 ]]; then trap 'rm -rf "$WORK_DIR"' EXIT; fi
MIRROR_DIR="$WORK_DIR/mirror"
CLI_CONFIG="$WORK_DIR/cli.tfrc"

log() { printf '[test-modules %s] %s\n' "$(date +%T)" "$*"; }
failures=()
fail() { failures+=("$1"); log "FAILED: $1"; }

# tool_bin prints the binary of a tool name, or fails saying how to get it.
tool_bin() {
  case $1 in
  tofu) [[ -x "$TOFU" ]] || { echo "OpenTofu not found at $TOFU (run scripts/testenv.sh or set TOFU)" >&2; return 2; }
    echo "$TOFU" ;;
  terraform) [[ -x "$TERRAFORM" ]] || { echo "Terraform 1.11 not found at '$TERRAFORM' (put terraform in PATH or set TERRAFORM)" >&2; return 2; }
    echo "$TERRAFORM" ;;
  terraform-1.15) [[ -x "$TERRAFORM_115" ]] || {
      echo "Terraform 1.15 not found at '$TERRAFORM_115': run scripts/testenv.sh (it unpacks ../shared/peers/terraform/terraform-1.15.9.xz)," \
        "set TERRAFORM_115, or leave it out with MODULES_TEST_TOOLS=\"tofu terraform\"" >&2
      return 2
    }
    echo "$TERRAFORM_115" ;;
  *) echo "unknown tool $1 in MODULES_TEST_TOOLS (known: tofu terraform terraform-1.15)" >&2; return 2 ;;
  esac
}
for tool in $TOOLS; do
  tool_bin "$tool" >/dev/null || exit 2
done

# --- provider + stand-in into a private mirror -----------------------------
t=$SECONDS
MIRROR_DIR="$MIRROR_DIR" CLI_CONFIG="$CLI_CONFIG" bash scripts/install-local-provider.sh >"$WORK_DIR/install.log" 2>&1 || {
  cat "$WORK_DIR/install.log" >&2
  echo "building/installing the provider failed" >&2
  exit 1
}
standin="$WORK_DIR/terraform-provider-talos_v$TALOS_VERSION"
CGO_ENABLED=0 go build -trimpath -o "$standin" ./tools/talos-standin || { echo "building tools/talos-standin failed" >&2; exit 1; }
for host in "${HOSTS[@]}"; do
  dir="$MIRROR_DIR/$host/siderolabs/talos/$TALOS_VERSION/$(go env GOOS)_$(go env GOARCH)"
  mkdir -p "$dir"
  install -m 0755 "$standin" "$dir/terraform-provider-talos_v$TALOS_VERSION"
done
log "provider $(tr -d ' \n' <VERSION) and talos stand-in $TALOS_VERSION installed in $MIRROR_DIR ($((SECONDS - t))s)"

export TF_CLI_CONFIG_FILE="$CLI_CONFIG"
export CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1
unset TF_PLUGIN_CACHE_DIR

# run_leg runs one tool's fmt, tests and validations in its own tree. It
# logs to stdout and writes its summary lines and failures to
# $WORK_DIR/<tool>.summaries and $WORK_DIR/<tool>.failures.
run_leg() {
  local tool=$1 bin tree dir m r t rc summary
  local summaries=() failures=() # fail() appends to this leg's failures
  bin=$(tool_bin "$tool")
  tree="$WORK_DIR/$tool"
  mkdir -p "$tree"
  # Copy without local state, lock files or .terraform folders: the lock
  # files of the roots pin the released provider's hashes, not this build's.
  tar -C "$ROOT" --exclude=.terraform --exclude=.terraform.lock.hcl --exclude='*.tfstate*' \
    -cf - modules environments | tar -C "$tree" -xf -

  if "$bin" fmt -check -recursive -no-color "$tree/modules" "$tree/environments" >"$tree/fmt.log" 2>&1 ||
    "$bin" fmt -check -recursive -no-color "$tree" >"$tree/fmt.log" 2>&1; then
    log "$tool fmt -check: clean"
  else
    cat "$tree/fmt.log"
    fail "$tool fmt -check"
  fi

  for m in "${MODULES[@]}"; do
    dir="$tree/modules/$m"
    t=$SECONDS
    if ! (cd "$dir" && "$bin" init -backend=false -input=false -no-color >init.log 2>&1); then
      cat "$dir/init.log"
      fail "$tool init modules/$m"
      continue
    fi
    (cd "$dir" && "$bin" test -no-color >test.log 2>&1)
    rc=$?
    summary=$(grep -E '^(Success|Failure)!' "$dir/test.log" | tail -1)
    if [[ $rc -ne 0 || -z "$summary" ]]; then
      grep -vE '\.\.\. (pass|skip)$' "$dir/test.log" | tail -60
      fail "$tool test modules/$m"
    fi
    summaries+=("$tool modules/$m: ${summary:-no summary (exit $rc)} ($((SECONDS - t))s)")
    log "${summaries[-1]}"
  done

  for r in "${ROOTS[@]}"; do
    dir="$tree/environments/$r"
    if (cd "$dir" && "$bin" init -backend=false -input=false -no-color >init.log 2>&1 &&
      "$bin" validate -no-color >validate.log 2>&1); then
      log "$tool validate environments/$r: $(grep -m1 -E "Success|valid" "$dir/validate.log")"
    else
      cat "$dir/init.log" "$dir/validate.log" 2>/dev/null | tail -40
      fail "$tool validate environments/$r"
      continue
    fi
    # A root with tests/ (production: its URI rules) runs them too.
    if [[ -d $dir/tests ]]; then
      t=$SECONDS
      (cd "$dir" && "$bin" test -no-color >test.log 2>&1)
      rc=$?
      summary=$(grep -E '^(Success|Failure)!' "$dir/test.log" | tail -1)
      if [[ $rc -ne 0 || -z "$summary" ]]; then
        grep -vE '\.\.\. (pass|skip)$' "$dir/test.log" | tail -60
        fail "$tool test environments/$r"
      fi
      summaries+=("$tool environments/$r: ${summary:-no summary (exit $rc)} ($((SECONDS - t))s)")
      log "${summaries[-1]}"
    fi
  done
  log "$tool: $("$bin" version | head -1), leg done"
  printf '%s\n' "${summaries[@]}" >"$WORK_DIR/$tool.summaries"
  printf '%s\n' "${failures[@]}" | grep . >"$WORK_DIR/$tool.failures"
}

# The legs: at the same time (each writes its log, printed whole at the
# end so the lines of one tool stay together), or one after the other.
t=$SECONDS
pids=()
for tool in $TOOLS; do
  if [[ $PARALLEL == 1 ]]; then
    run_leg "$tool" >"$WORK_DIR/$tool.log" 2>&1 &
    pids+=($!)
  else
    run_leg "$tool"
  fi
done
if [[ $PARALLEL == 1 ]]; then
  for pid in "${pids[@]}"; do wait "$pid"; done
  for tool in $TOOLS; do cat "$WORK_DIR/$tool.log"; done
fi
log "legs ($TOOLS) finished in $((SECONDS - t))s ($([[ $PARALLEL == 1 ]] && echo "in parallel" || echo "one after the other"))"

summaries=()
for tool in $TOOLS; do
  [[ -f $WORK_DIR/$tool.summaries ]] || { failures+=("$tool: leg ended without a summary"); continue; }
  mapfile -t -O "${#summaries[@]}" summaries <"$WORK_DIR/$tool.summaries"
  [[ -s $WORK_DIR/$tool.failures ]] && mapfile -t -O "${#failures[@]}" failures <"$WORK_DIR/$tool.failures"
done

echo
echo "module test summaries:"
printf '  %s\n' "${summaries[@]}"
if ((${#failures[@]})); then
  echo "failed:"
  printf '  %s\n' "${failures[@]}"
  exit 1
fi
echo "all module tests, validations and fmt checks passed"
