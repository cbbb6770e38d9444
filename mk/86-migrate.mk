# Migration layer: configurations written for dmacvicar/libvirt (0.9.7 as its
# docs and examples write them, and an 0.8.3 lab) applied with the REAL old
# provider (../shared/peers/dmacvicar-libvirt, decompressed at run time), then
# moved as a user moves them: source changed, `tofu state replace-provider`,
# `tofu init` (0.9.x), or the 0.8.x steps of
# docs/guides/migrating-from-dmacvicar-libvirt.md (state rm + import blocks).
# internal/provider/migrate_peer_acc_test.go, build tag `migrate`. Prints the
# table: configuration, old provider, first plan after the move, objects
# restarted or recreated by the apply after it, the plan of a deliberate
# change; then the layer's wall time. Cases run in parallel (own names mig-*,
# subnets 10.241.x.0/24, pools, host links).

TEST_TARGETS += test-migrate

.PHONY: test-migrate

test-migrate: ## Moves from the real dmacvicar/libvirt 0.9.7 and 0.8.3 (plan after the move, restarts, a deliberate change); prints a table
	@start=$$SECONDS; table=$$(mktemp); \
	source $(TFPLV_ENV) && TF_ACC=1 MIGRATE_TABLE=$$table go test -tags migrate ./internal/provider -count=1 -v -parallel 8 -timeout 20m -run 'TestAccPeer'; rc=$$?; \
	echo; echo "migration table:"; \
	{ echo "configuration|old provider|first plan after the move|restarted or recreated|deliberate change -> plan|time|result"; \
	  sort "$$table" | sed 's/ | /|/g'; } | column -t -s '|' -o ' | '; \
	rm -f "$$table"; \
	echo "test-migrate: $$((SECONDS - start))s wall time"; exit $$rc
