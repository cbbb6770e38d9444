package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// clientFromProviderData turns the framework's ProviderData into the shared
// connection client. A nil ProviderData (the provider is not configured yet, or
// its uri is unknown during plan) yields nil without an error; callers that need
// libvirt check for nil through requireClient.
func clientFromProviderData(data any, diags *diag.Diagnostics) *libvirtconn.Client {
	if data == nil {
		return nil
	}
	c, ok := data.(*libvirtconn.Client)
	if !ok {
		diags.AddError("Unexpected provider data", fmt.Sprintf("expected *libvirtconn.Client, got %T; this is a provider bug", data))
		return nil
	}
	return c
}

// requireClient reports an error when the provider has no connection to use.
func requireClient(c *libvirtconn.Client, diags *diag.Diagnostics) bool {
	if c == nil {
		diags.AddError("libvirt provider not configured",
			"The provider's uri is not known yet or the provider block was not configured; the operation needs a libvirt connection.")
		return false
	}
	return true
}
