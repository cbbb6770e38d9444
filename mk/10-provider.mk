VERSION ?= $(shell cat VERSION)
BINARY  := terraform-provider-libvirt

.PHONY: build unit
build: ## Build the provider binary
	CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags "-s -w -X main.version=$(VERSION)" -o $(BINARY) .

unit: ## Unit tests (no libvirtd; tests that drive tofu find it through /var/cache/tfplv/env.sh); prints each package's coverage
	@if [ -f /var/cache/tfplv/env.sh ]; then eval "$$(grep -E '^export (TOFU|TF_ACC_[A-Z_]+|TF_CLI_CONFIG_FILE|CHECKPOINT_DISABLE)=' /var/cache/tfplv/env.sh)"; fi; \
	go test -cover ./...

.PHONY: bench-plan bench-plan-sweep bench-provider
bench-plan: ## tofu plan/apply over 100 domains vs 100 terraform_data and a no-op provider with the same schema (wall, CPU, libvirt calls)
	bash scripts/bench-plan.sh 100

bench-plan-sweep: ## bench-plan, plus the no-op provider's plan time for smaller (pruned) domain schemas
	SWEEP=1 bash scripts/bench-plan.sh 100

bench-provider: ## Provider-side plan, validate and schema benchmarks (no libvirtd needed)
	go test ./internal/provider -run XXX -bench 'PlanResourceChange|ValidateResource|GetProviderSchema' -benchtime 50x
