package treeresource

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// Actions (Terraform 1.14 and later) are not in tfprotov6.ProviderServer
// yet but in its extension ProviderServerWithActions, which the embedded
// framework server implements: without these methods the protocol server
// (tf6server) finds no actions behind this layer and refuses every action
// call. They pass straight to the framework.

var _ tfprotov6.ProviderServerWithActions = (*Server)(nil)

// actions returns the framework server's action methods.
func (s *Server) actions() (tfprotov6.ProviderServerWithActions, error) {
	a, ok := s.ProviderServer.(tfprotov6.ProviderServerWithActions)
	if !ok {
		return nil, fmt.Errorf("the wrapped provider server (%T) serves no actions", s.ProviderServer)
	}
	return a, nil
}

func (s *Server) ValidateActionConfig(ctx context.Context, req *tfprotov6.ValidateActionConfigRequest) (*tfprotov6.ValidateActionConfigResponse, error) {
	a, err := s.actions()
	if err != nil {
		return nil, err
	}
	return a.ValidateActionConfig(ctx, req)
}

func (s *Server) PlanAction(ctx context.Context, req *tfprotov6.PlanActionRequest) (*tfprotov6.PlanActionResponse, error) {
	a, err := s.actions()
	if err != nil {
		return nil, err
	}
	return a.PlanAction(ctx, req)
}

func (s *Server) InvokeAction(ctx context.Context, req *tfprotov6.InvokeActionRequest) (*tfprotov6.InvokeActionServerStream, error) {
	a, err := s.actions()
	if err != nil {
		return nil, err
	}
	return a.InvokeAction(ctx, req)
}
