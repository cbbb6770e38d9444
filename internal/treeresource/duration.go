package treeresource

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// DurationValidator accepts Go durations ("90s", "5m") greater than zero;
// zero too when AllowZero. The wait timeouts and the actions' timeouts
// share it.
type DurationValidator struct{ AllowZero bool }

func (v DurationValidator) Description(context.Context) string {
	if v.AllowZero {
		return `must be a duration such as "90s" or "5m", or "0s"`
	}
	return `must be a positive duration such as "90s" or "5m"`
}

func (v DurationValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v DurationValidator) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	d, err := time.ParseDuration(req.ConfigValue.ValueString())
	if err != nil || d < 0 || (d == 0 && !v.AllowZero) {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid duration",
			fmt.Sprintf("%s %s, got %q.", req.Path, v.Description(ctx), req.ConfigValue.ValueString()))
	}
}
