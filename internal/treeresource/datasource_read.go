package treeresource

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// the data source calls below override the framework's with the same
// signatures: Server still is a whole protocol 6 server
var _ tfprotov6.ProviderServer = (*Server)(nil)

func (s *Server) ValidateDataResourceConfig(ctx context.Context, req *tfprotov6.ValidateDataResourceConfigRequest) (*tfprotov6.ValidateDataResourceConfigResponse, error) {
	if d, ok := s.data[req.TypeName]; ok {
		config, err := req.Config.Unmarshal(d.objType)
		if err != nil {
			return nil, err
		}
		ca := attrsView(config)
		_, diags := d.lookupArgs(ca)
		d.readOnly(ca, &diags)
		return &tfprotov6.ValidateDataResourceConfigResponse{Diagnostics: toProtoDiagnostics(diags)}, nil
	}
	return s.ProviderServer.ValidateDataResourceConfig(ctx, req)
}

func (s *Server) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	if d, ok := s.data[req.TypeName]; ok {
		return d.read(ctx, s.providerData(), req)
	}
	return s.ProviderServer.ReadDataSource(ctx, req)
}

// lookupArgs checks that the configuration gives exactly one way to find
// the object, completely, and returns its arguments; by is nil when a value
// is still unknown (validation before the plan knows it) or on an error.
// Diagnostics are attached to the argument they are about.
func (d *dataType) lookupArgs(config map[string]tftypes.Value) (by map[string]string, diags diag.Diagnostics) {
	var given []string // in the order of the ways, for stable messages
	seen := map[string]bool{}
	for _, way := range d.ways {
		for _, name := range way {
			if v, ok := config[name]; ok && !v.IsNull() && !seen[name] {
				seen[name] = true
				given = append(given, name)
			}
		}
	}
	if len(given) == 0 {
		diags.AddError("Missing lookup argument",
			fmt.Sprintf("Give %s to find the %s.", d.describeWays(), d.name))
		return nil, diags
	}
	// the ways holding every given argument
	var candidates [][]string
	for _, way := range d.ways {
		if containsAll(way, given) {
			candidates = append(candidates, way)
		}
	}
	if len(candidates) == 0 {
		a, b := conflicting(d.ways, given)
		diags.AddAttributeError(path.Root(b), "Ambiguous lookup",
			fmt.Sprintf("`%s` cannot be combined with `%s`: give exactly one of %s to find the %s.", b, a, d.describeWays(), d.name))
		return nil, diags
	}
	way := candidates[0]
	for _, w := range candidates {
		if len(w) == len(given) {
			way = w
		}
	}
	for _, name := range way {
		if !seen[name] {
			diags.AddAttributeError(path.Root(name), "Incomplete lookup",
				fmt.Sprintf("`%s` is required with `%s` to find the %s.", name, strings.Join(given, "` and `"), d.name))
		}
	}
	if diags.HasError() {
		return nil, diags
	}
	by = make(map[string]string, len(way))
	unknown := false
	for _, name := range way {
		v := config[name]
		if !v.IsKnown() {
			unknown = true
			continue
		}
		var s string
		if err := v.As(&s); err != nil {
			diags.AddAttributeError(path.Root(name), "Invalid lookup argument", err.Error())
			continue
		}
		if s == "" {
			diags.AddAttributeError(path.Root(name), "Invalid lookup argument", fmt.Sprintf("`%s` is empty.", name))
			continue
		}
		if check := d.args[name].Check; check != nil {
			if err := check(s); err != nil {
				diags.AddAttributeError(path.Root(name), "Invalid lookup argument", fmt.Sprintf("`%s`: %v", name, err))
				continue
			}
		}
		by[name] = s
	}
	if unknown || diags.HasError() {
		return nil, diags
	}
	return by, diags
}

// readOnly refuses a configured value for anything but a lookup argument,
// as the framework does for computed-only attributes: tofu leaves that
// check to the provider.
func (d *dataType) readOnly(config map[string]tftypes.Value, diags *diag.Diagnostics) {
	names := make([]string, 0, len(config))
	for name, v := range config {
		if _, arg := d.args[name]; !arg && !v.IsNull() {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		diags.AddAttributeError(path.Root(name), "Invalid Configuration for Read-Only Attribute",
			fmt.Sprintf("`%s` is read-only: the %s data source reports it. Set only %s to find the %s.",
				name, d.typeName, d.describeWays(), d.name))
	}
}

// containsAll reports whether way holds every name.
func containsAll(way, names []string) bool {
	for _, n := range names {
		found := false
		for _, w := range way {
			found = found || w == n
		}
		if !found {
			return false
		}
	}
	return true
}

// conflicting returns two given arguments no way holds together.
func conflicting(ways [][]string, given []string) (string, string) {
	for i, a := range given {
		for _, b := range given[i+1:] {
			together := false
			for _, way := range ways {
				together = together || containsAll(way, []string{a, b})
			}
			if !together {
				return a, b
			}
		}
	}
	return given[0], given[len(given)-1]
}

// lookedUp says what was looked up: `name "web"`, `pool "default" and name "a.qcow2"`.
func lookedUp(way []string, by map[string]string) string {
	parts := make([]string, len(way))
	for i, name := range way {
		parts[i] = fmt.Sprintf("%s %q", name, by[name])
	}
	return strings.Join(parts, " and ")
}

// read answers ReadDataSource: find the object, fetch it, and return its
// document and reported attributes; the lookup arguments keep the
// configured values (tofu requires configured values back unchanged; the
// document's name, uuid and key are those values anyway).
func (d *dataType) read(ctx context.Context, providerData any, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	config, err := req.Config.Unmarshal(d.objType)
	if err != nil {
		return nil, err
	}
	resp := &tfprotov6.ReadDataSourceResponse{}
	ca := attrsView(config)
	by, diags := d.lookupArgs(ca)
	d.readOnly(ca, &diags)
	if diags.HasError() {
		resp.Diagnostics = toProtoDiagnostics(diags)
		return resp, nil
	}
	if by == nil {
		diags.AddError("Unknown lookup argument", "The "+d.name+" can only be looked up once every lookup argument is known.")
		resp.Diagnostics = toProtoDiagnostics(diags)
		return resp, nil
	}
	client := ClientFrom(providerData, &diags)
	if diags.HasError() || !RequireClient(client, &diags) {
		resp.Diagnostics = toProtoDiagnostics(diags)
		return resp, nil
	}
	var way []string
	for _, w := range d.ways {
		if len(w) == len(by) && containsAll(w, keys(by)) {
			way = w
		}
	}
	what := lookedUp(way, by)
	notFound := func(err error) {
		diags.AddAttributeError(path.Root(way[0]), "Cannot find "+d.name,
			fmt.Sprintf("No %s with %s on this libvirt host (libvirt: %v).", d.name, what, err))
	}
	id, err := d.find(ctx, client, by)
	var doc, own map[string]tftypes.Value
	if err == nil {
		doc, own, err = d.fetch(ctx, client, id)
	}
	switch {
	case libvirtconn.IsNotFound(err):
		notFound(err) // also when it went away between the lookup and the read
	case err != nil:
		diags.AddError("Cannot read "+d.name, fmt.Sprintf("Reading the %s with %s: %v", d.name, what, err))
	}
	if diags.HasError() {
		resp.Diagnostics = toProtoDiagnostics(diags)
		return resp, nil
	}
	vals := make(map[string]tftypes.Value, len(d.objType.AttributeTypes))
	for name, t := range d.objType.AttributeTypes {
		v, ok := doc[name]
		if o, isOwn := own[name]; isOwn {
			v, ok = o, true
		}
		if _, given := by[name]; given {
			v, ok = ca[name], true
		}
		if !ok {
			v = tftypes.NewValue(t, nil)
		}
		vals[name] = v
	}
	state, err := tfprotov6.NewDynamicValue(d.objType, tftypes.NewValue(d.objType, vals))
	if err != nil {
		return nil, err
	}
	resp.State = &state
	resp.Diagnostics = toProtoDiagnostics(diags)
	return resp, nil
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
