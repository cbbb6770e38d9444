# Test environment, local install, quickstart and the whole test run.
# Other fragments add their test targets with `TEST_TARGETS += <target>`;
# `make test` runs them in order after `unit test-acc test-quickstart`.
TEST_TARGETS := unit test-acc test-quickstart $(TEST_TARGETS)
TFPLV_ENV    := /var/cache/tfplv/env.sh

.PHONY: testenv guest-image smoke-guest install-local quickstart test-quickstart test test-acc

testenv: ## Prepare libvirtd, the tfacc pool, tofu and /var/cache/tfplv/env.sh (idempotent)
	bash scripts/testenv.sh

guest-image: ## Build (or reuse) the cached Debian test guest; LIBVIRT_TEST_GUEST_DIR points at it
	bash scripts/build-guest-image.sh

smoke-guest: testenv guest-image ## Boot the test guest once through virsh and check lease + guest agent
	bash scripts/smoke-guest.sh

install-local: ## Build the provider into the local filesystem mirror + /var/cache/tfplv/tofurc-local
	bash scripts/install-local-provider.sh

quickstart: testenv guest-image install-local ## Apply examples/quickstart with tofu through the local mirror
	bash scripts/quickstart.sh

test-quickstart: ## The quickstart as a user runs it: apply, outputs, the printed destroy command, nothing left
	bash scripts/test-quickstart.sh

# Acceptance tests with a layer of their own (which runs them with what they
# need), left out here so they do not run twice.
ACC_OWN_LAYER = ^TestAccAdoptHost_

test-acc: ## Acceptance tests against the real libvirtd (needs `make testenv guest-image`)
	source $(TFPLV_ENV) && TF_ACC=1 go test ./... -timeout 75m -p 1 -v -count=1 -skip '$(ACC_OWN_LAYER)'

# Every layer in order. Layers get env.sh's tofu settings (unit tests of the
# provider run tofu too) and TERRAFORM_115 (the Terraform 1.15 legs of
# test-modules and test-install) but not TF_ACC nor LIBVIRT_TEST_*: layers that need
# libvirtd source env.sh themselves, as test-acc does. A failing layer does not
# hide the ones after it; the run fails at the end if any layer failed.
test: ## Every test layer: test environment, guest image, then $(TEST_TARGETS)
	bash scripts/testenv.sh
	bash scripts/build-guest-image.sh
	@eval "$$(grep -E '^export (TOFU|TERRAFORM_115|TF_ACC_[A-Z_]+|TF_CLI_CONFIG_FILE|CHECKPOINT_DISABLE|MIRROR_DIR)=' $(TFPLV_ENV))"; \
	failed=""; passed=0; nfailed=0; for t in $(TEST_TARGETS); do \
	  start=$$SECONDS; echo "=== make $$t"; \
	  if $(MAKE) --no-print-directory $$t; then r=ok; passed=$$((passed + 1)); \
	  else r=FAILED; nfailed=$$((nfailed + 1)); failed="$$failed $$t"; fi; \
	  echo "=== make $$t: $$r in $$((SECONDS - start))s"; \
	 done; \
	echo "test layers ($(TEST_TARGETS)):"; \
	echo "layers: $$passed passed, $$nfailed failed"; \
	if [ -n "$$failed" ]; then echo "failed layers:$$failed"; exit 1; fi
