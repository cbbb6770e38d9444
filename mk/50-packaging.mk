# Packaging: generated registry docs, release archives (goreleaser) and the
# offline install path a user follows (filesystem mirror -> tofu init/lock).

TOFU       ?= /var/cache/tfplv/tofu-v1.12.6/tofu
GORELEASER ?= /var/cache/tfplv/goreleaser-v2.15.1/goreleaser
export TOFU GORELEASER

TEST_TARGETS += docs-check test-install

.PHONY: docs docs-check goreleaser release-snapshot release test-install lock-roots lock-roots-check

docs: ## Regenerate docs/ (tfplugindocs, offline, schema from the locally built provider)
	scripts/docs.sh

docs-check: ## Fail when docs/ is stale against templates/, examples/ and the schema
	scripts/docs.sh --check

goreleaser: $(GORELEASER) ## Build goreleaser v2.15.1 from the Go module proxy into /var/cache/tfplv
$(GORELEASER):
	mkdir -p $(dir $(GORELEASER))
	GOBIN=$(abspath $(dir $(GORELEASER))) go install github.com/goreleaser/goreleaser/v2@v2.15.1

release-snapshot: $(GORELEASER) ## Unsigned snapshot release of every target into dist/ (PROVIDER_VERSION=x.y.z to name it)
	$(GORELEASER) release --snapshot --clean --skip=sign

release: $(GORELEASER) ## Signed release of the current tag (needs GPG_FINGERPRINT and GITHUB_TOKEN)
	@test -n "$$GPG_FINGERPRINT" || { echo "release: set GPG_FINGERPRINT to the signing key's fingerprint" >&2; exit 1; }
	$(GORELEASER) release --clean

test-install: $(GORELEASER) ## Snapshot release, offline install from a packed mirror by OpenTofu and Terraform 1.15 (and 1.11), lock hashes and schema checked
	scripts/test-install.sh

lock-roots: $(GORELEASER) ## Refresh environments/*/.terraform.lock.hcl with this provider's hashes
	scripts/lock-roots.sh

lock-roots-check: $(GORELEASER) ## Report (exit 1) when the committed root lock files are stale
	scripts/lock-roots.sh --check
