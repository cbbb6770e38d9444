package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// durationValidator accepts Go durations ("90s", "5m") greater than zero;
// zero too when allowZero. The wait timeouts and the actions' timeouts
// share it.
type durationValidator struct{ allowZero bool }

func (v durationValidator) Description(context.Context) string {
	if v.allowZero {
		return `must be a duration such as "90s" or "5m", or "0s"`
	}
	return `must be a positive duration such as "90s" or "5m"`
}

func (v durationValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v durationValidator) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	d, err := time.ParseDuration(req.ConfigValue.ValueString())
	if err != nil || d < 0 || (d == 0 && !v.allowZero) {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid duration",
			fmt.Sprintf("%s %s, got %q.", req.Path, v.Description(ctx), req.ConfigValue.ValueString()))
	}
}
