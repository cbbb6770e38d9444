//go:build tools

// Package main pins modules that the provider's later packages and tests use,
// so that go.mod and go.sum list them from the start.
package main

import (
	_ "github.com/digitalocean/go-libvirt"
	_ "github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	_ "github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	_ "github.com/hashicorp/terraform-plugin-go/tfprotov6"
	_ "github.com/hashicorp/terraform-plugin-log/tflog"
	_ "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	_ "github.com/kdomanski/iso9660"
	_ "golang.org/x/crypto/ssh"
	_ "libvirt.org/go/libvirtxml"
)
