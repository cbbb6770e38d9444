VERSION ?= $(shell cat VERSION)
BINARY  := terraform-provider-libvirt

.PHONY: build unit
build: ## Build the provider binary
	CGO_ENABLED=0 go build -trimpath -buildvcs=false -ldflags "-s -w -X main.version=$(VERSION)" -o $(BINARY) .

unit: ## Unit tests (no libvirtd needed)
	go test ./...

.PHONY: bench-plan bench-provider
bench-plan: ## tofu plan/apply over 100 domains vs 100 terraform_data (wall time, libvirt calls)
	bash scripts/bench-plan.sh 100

bench-provider: ## Provider-side plan, validate and schema benchmarks (no libvirtd needed)
	go test ./internal/provider -run XXX -bench 'PlanResourceChange|ValidateResource|GetProviderSchema' -benchtime 50x
