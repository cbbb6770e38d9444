package actions

import "github.com/hashicorp/terraform-plugin-framework/action"

// All lists every action the provider serves.
func All() []func() action.Action {
	return []func() action.Action{
		NewDomainFsGrowAction,
		NewDomainRebootAction,
		NewDomainResetAction,
		NewDomainShutdownAction,
		NewDomainSnapshotRevertAction,
	}
}
