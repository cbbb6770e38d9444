VERSION ?= 0.0.0-dev
BINARY  := terraform-provider-libvirt

.PHONY: build unit
build: ## Build the provider binary
	CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=$(VERSION)" -o $(BINARY) .

unit: ## Unit tests (no libvirtd needed)
	go test ./...
