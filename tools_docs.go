//go:build tools

// Package main pins terraform-plugin-docs so that `make docs` runs the same
// tfplugindocs version everywhere through `go run`, without a separate install.
package main

import (
	_ "github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs"
)
