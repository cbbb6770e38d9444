#!/usr/bin/env bash
# Applies examples/quickstart with OpenTofu and the locally installed provider
# (run `make quickstart`, which first prepares libvirtd, the guest image and the
# local mirror). The example is copied to a working folder that keeps its
# state, so it can be destroyed later; under CI=true it is destroyed right away.
#
# Env: EXAMPLE_DIR (default examples/quickstart), CLI_CONFIG (default
# /var/cache/tfplv/tofurc-local), WORKDIR_PREFIX (default tfplv-quickstart:
# the working folder is /var/tmp/<prefix>.XXXXXX).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
CACHE_DIR=/var/cache/tfplv
EXAMPLE_DIR="${EXAMPLE_DIR:-examples/quickstart}"
CLI_CONFIG="${CLI_CONFIG:-$CACHE_DIR/tofurc-local}"
ENV_FILE="$CACHE_DIR/env.sh"

[[ -d "$EXAMPLE_DIR" ]] && compgen -G "$EXAMPLE_DIR/*.tf" >/dev/null || {
  echo "no configuration in $EXAMPLE_DIR" >&2
  exit 1
}
[[ -r "$ENV_FILE" ]] || {
  echo "$ENV_FILE missing: run scripts/testenv.sh (make testenv) first" >&2
  exit 1
}
[[ -r "$CLI_CONFIG" ]] || {
  echo "$CLI_CONFIG missing: run scripts/install-local-provider.sh (make install-local) first" >&2
  exit 1
}
# TOFU and the TF_VAR_* values (URI, pool, domain type, guest image folder)
# that the example may declare; undeclared ones are ignored by tofu.
# shellcheck source=/dev/null
source "$ENV_FILE"
export TF_CLI_CONFIG_FILE="$CLI_CONFIG"
export TF_IN_AUTOMATION=1

WORKDIR_PREFIX="${WORKDIR_PREFIX:-tfplv-quickstart}"
WORKDIR=$(mktemp -d "/var/tmp/$WORKDIR_PREFIX.XXXXXX")
cp -r "$EXAMPLE_DIR"/. "$WORKDIR"/
rm -rf "$WORKDIR/.terraform" "$WORKDIR"/terraform.tfstate*
cd "$WORKDIR"
echo "quickstart: working folder $WORKDIR (tofu: $TOFU)"
# The same values in terraform.tfvars.json, so that later commands in this
# folder (the destroy printed at the end) need no environment.
vars='{}'
for name in $(sed -n 's/^variable "\([a-z_]*\)".*/\1/p' ./*.tf); do
  env_name="TF_VAR_$name"
  [[ -n "${!env_name:-}" ]] && vars=$(jq -c --arg k "$name" --arg v "${!env_name}" '. + {($k): $v}' <<<"$vars")
done
echo "$vars" >terraform.tfvars.json

# Under CI everything is destroyed at the end, also when apply failed half-way;
# otherwise the user gets the command to do it.
finish() {
  local rc=$? t=$SECONDS
  if [[ "${CI:-}" == "true" ]]; then
    if [[ -d "$WORKDIR/.terraform" ]]; then
      "$TOFU" destroy -input=false -auto-approve -no-color || rc=1
      echo "quickstart: destroyed in $((SECONDS - t))s (CI=true)"
    fi
    cd /
    rm -rf "$WORKDIR"
  else
    ((rc == 0)) && echo "The quickstart is applied." || echo "The quickstart failed; it may be partly applied."
    echo "To remove everything it created:"
    echo "  cd $WORKDIR && TF_CLI_CONFIG_FILE=$CLI_CONFIG $TOFU destroy -auto-approve"
  fi
  exit "$rc"
}
trap finish EXIT

t=$SECONDS
"$TOFU" init -input=false -no-color
"$TOFU" apply -input=false -auto-approve -no-color
echo "quickstart: applied in $((SECONDS - t))s"
"$TOFU" output -no-color
