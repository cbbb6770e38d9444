package provider

import (
	"context"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/digitalocean/go-libvirt"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

var actionNames = []string{"libvirt_domain_fs_grow", "libvirt_domain_reboot", "libvirt_domain_reset", "libvirt_domain_shutdown", "libvirt_domain_snapshot_revert"}

// actionServer is the provider's protocol server as Terraform sees it, with
// the action calls: tf6server serves actions only from a server that
// implements them, so a wrapper layer that hides them turns every action
// call into "provider does not support actions".
func actionServer(t *testing.T) tfprotov6.ProviderServerWithActions {
	t.Helper()
	s, ok := ProtocolServer("test")().(tfprotov6.ProviderServerWithActions)
	if !ok {
		t.Fatal("the protocol server does not pass action calls on: Terraform would find no actions")
	}
	return s
}

func TestActionsServed(t *testing.T) {
	s := actionServer(t)
	ctx := context.Background()
	schemas, err := s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for name, sch := range schemas.ActionSchemas {
		got = append(got, name)
		attrs := map[string]bool{}
		for _, a := range sch.Schema.Block.Attributes {
			attrs[a.Name] = true
		}
		if !attrs["domain"] || !attrs["host"] {
			t.Errorf("%s has attributes %v, want domain and host", name, attrs)
		}
	}
	sort.Strings(got)
	if strings.Join(got, " ") != strings.Join(actionNames, " ") {
		t.Errorf("action schemas %q, want %q", got, actionNames)
	}
	meta, err := s.GetMetadata(ctx, &tfprotov6.GetMetadataRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(meta.Actions) != len(actionNames) {
		t.Errorf("metadata lists %d actions, want %d", len(meta.Actions), len(actionNames))
	}
}

// actionConfig builds an action's configuration value from the schema the
// server reports; attributes not in attrs are null.
func actionConfig(t *testing.T, s tfprotov6.ProviderServer, action string, attrs map[string]string) *tfprotov6.DynamicValue {
	t.Helper()
	schemas, err := s.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	typ := schemas.ActionSchemas[action].Schema.ValueType().(tftypes.Object)
	vals := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		if v, ok := attrs[name]; ok {
			vals[name] = tftypes.NewValue(at, v)
		} else {
			vals[name] = tftypes.NewValue(at, nil)
		}
	}
	dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, vals))
	if err != nil {
		t.Fatal(err)
	}
	return &dv
}

func TestActionValidationNamesTheAttribute(t *testing.T) {
	s := actionServer(t)
	for _, tc := range []struct {
		action string
		attrs  map[string]string
		attr   string
	}{
		{"libvirt_domain_shutdown", map[string]string{"domain": "x", "timeout": "soon"}, "timeout"},
		{"libvirt_domain_reboot", map[string]string{"domain": "x", "method": "button"}, "method"},
		{"libvirt_domain_snapshot_revert", map[string]string{"domain": "x", "snapshot": "s", "state": "off"}, "state"},
		{"libvirt_domain_fs_grow", map[string]string{"domain": "x", "path": "var"}, "path"},
		{"libvirt_domain_fs_grow", map[string]string{"domain": "x", "timeout": "0s"}, "timeout"},
	} {
		resp, err := s.ValidateActionConfig(context.Background(), &tfprotov6.ValidateActionConfigRequest{
			ActionType: tc.action, Config: actionConfig(t, s, tc.action, tc.attrs)})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, d := range resp.Diagnostics {
			if d.Severity == tfprotov6.DiagnosticSeverityError && d.Attribute != nil && d.Attribute.String() == tftypes.NewAttributePath().WithAttributeName(tc.attr).String() {
				found = true
			}
		}
		if !found {
			t.Errorf("%s with %v: no error on %s, diagnostics %v", tc.action, tc.attrs, tc.attr, resp.Diagnostics)
		}
	}
}

// invoke runs an action to its end and returns its progress messages and
// final diagnostics.
func invoke(t *testing.T, s tfprotov6.ProviderServerWithActions, action string, attrs map[string]string) ([]string, []*tfprotov6.Diagnostic) {
	t.Helper()
	stream, err := s.InvokeAction(context.Background(), &tfprotov6.InvokeActionRequest{ActionType: action, Config: actionConfig(t, s, action, attrs)})
	if err != nil {
		t.Fatal(err)
	}
	var progress []string
	var diags []*tfprotov6.Diagnostic
	stream.Events(func(ev tfprotov6.InvokeActionEvent) bool {
		switch e := ev.Type.(type) {
		case tfprotov6.ProgressInvokeActionEventType:
			progress = append(progress, e.Message)
		case tfprotov6.CompletedInvokeActionEventType:
			diags = e.Diagnostics
		}
		return true
	})
	return progress, diags
}

// TestActionsReachTheirHost configures the provider with the test driver
// as its uri and the system daemon as host "sys": an action on a domain of
// the test driver finds it without host, not with host = "sys", and an
// unknown host is an error on the host attribute. On the way, each action's
// outcome on the test driver's domain: done and reported, or refused with
// the reason.
func TestActionsReachTheirHost(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("needs libvirtd: set TF_ACC=1")
	}
	s := actionServer(t)
	ctx := context.Background()
	// A domain of its own on the test driver (whose state all connections
	// to it share while one is open): the built-in "test" is other tests'.
	c, err := libvirtconn.New("test:///default")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const name = "tfact-test"
	err = c.Do(ctx, func(l *libvirt.Libvirt) error {
		dom, err := l.DomainDefineXML("<domain type='test'><name>" + name + "</name><memory>65536</memory><os><type>hvm</type></os></domain>")
		if err != nil {
			return err
		}
		return l.DomainCreate(dom)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = c.Do(ctx, func(l *libvirt.Libvirt) error {
			dom, err := l.DomainLookupByName(name)
			if err != nil {
				return err
			}
			_ = l.DomainDestroy(dom)
			return l.DomainUndefine(dom)
		})
	}()
	schemas, err := s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	pt := schemas.Provider.ValueType().(tftypes.Object)
	hostsType := pt.AttributeTypes["hosts"].(tftypes.Map)
	hostType := hostsType.ElementType.(tftypes.Object)
	host := map[string]tftypes.Value{}
	for name, at := range hostType.AttributeTypes {
		host[name] = tftypes.NewValue(at, nil)
	}
	host["uri"] = tftypes.NewValue(tftypes.String, testAccURI())
	cfg, err := tfprotov6.NewDynamicValue(pt, tftypes.NewValue(pt, map[string]tftypes.Value{
		"uri":   tftypes.NewValue(tftypes.String, "test:///default"),
		"hosts": tftypes.NewValue(hostsType, map[string]tftypes.Value{"sys": tftypes.NewValue(hostType, host)}),
	}))
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := s.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: &cfg}); err != nil || len(resp.Diagnostics) > 0 {
		t.Fatalf("configure: %v %v", err, resp.Diagnostics)
	}

	progress, diags := invoke(t, s, "libvirt_domain_reset", map[string]string{"domain": name})
	if len(diags) > 0 {
		t.Fatalf("reset on the provider's uri: %v", diagSummaries(diags))
	}
	if strings.Join(progress, "|") != name+": reset" {
		t.Errorf("progress %q, want the reset reported", progress)
	}

	// each action's outcome on the test driver's domain, reported or refused clearly
	progress, diags = invoke(t, s, "libvirt_domain_snapshot_revert", map[string]string{"domain": name, "snapshot": "missing"})
	if !hasDiag(diags, "snapshot", `domain tfact-test has no snapshot called "missing"`) {
		t.Errorf("revert to a missing snapshot: %v %q", diagSummaries(diags), progress)
	}
	_, diags = invoke(t, s, "libvirt_domain_fs_grow", map[string]string{"domain": name})
	if len(diags) != 1 || diags[0].Summary != "The guest agent of domain tfact-test does not answer" ||
		!strings.Contains(diags[0].Detail, "needs qemu-guest-agent running there and a virtio channel org.qemu.guest_agent.0") {
		t.Errorf("fs_grow without a guest agent: %v", diagSummaries(diags))
	}
	progress, diags = invoke(t, s, "libvirt_domain_shutdown", map[string]string{"domain": name, "timeout": "0s"})
	if len(diags) > 0 || strings.Join(progress, "|") != name+": no shutdown timeout: forcing the domain off|"+name+": forced off" {
		t.Errorf("shutdown with timeout 0s: %v %q", diagSummaries(diags), progress)
	}
	progress, diags = invoke(t, s, "libvirt_domain_shutdown", map[string]string{"domain": name})
	if len(diags) > 0 || strings.Join(progress, "|") != name+": already shut off" {
		t.Errorf("shutdown of a shut-off domain: %v %q", diagSummaries(diags), progress)
	}
	_, diags = invoke(t, s, "libvirt_domain_reboot", map[string]string{"domain": name})
	if len(diags) != 1 || !strings.Contains(diags[0].Detail, "cannot reboot the domain: it is shut off, not running") {
		t.Errorf("reboot of a shut-off domain: %v", diagSummaries(diags))
	}

	_, diags = invoke(t, s, "libvirt_domain_reset", map[string]string{"domain": name, "host": "sys"})
	if !hasDiag(diags, "domain", `no domain with UUID or name "tfact-test" on host "sys"`) {
		t.Errorf("reset with host = sys reached another host: %v", diagSummaries(diags))
	}

	_, diags = invoke(t, s, "libvirt_domain_reset", map[string]string{"domain": name, "host": "nope"})
	if !hasDiag(diags, "host", `host "nope" is not one of the provider's hosts (sys)`) {
		t.Errorf("unknown host: %v", diagSummaries(diags))
	}
}

func hasDiag(diags []*tfprotov6.Diagnostic, attr, detail string) bool {
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError && d.Attribute != nil &&
			d.Attribute.String() == tftypes.NewAttributePath().WithAttributeName(attr).String() && strings.Contains(d.Detail, detail) {
			return true
		}
	}
	return false
}

func diagSummaries(diags []*tfprotov6.Diagnostic) []string {
	var out []string
	for _, d := range diags {
		out = append(out, d.Summary+": "+d.Detail)
	}
	return out
}
