package libvirtops

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/digitalocean/go-libvirt"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// ErrAgentUnavailable is returned when the guest agent cannot be reached:
// the domain has no agent channel, does not run, or nothing in the guest
// answers on the channel.
var ErrAgentUnavailable = errors.New("the QEMU guest agent does not answer")

// ErrCommandMissing is returned by GuestAgent.Exec when the program is not
// installed in the guest (or not on the agent's PATH).
var ErrCommandMissing = errors.New("not found on the guest agent's PATH")

// agentCallTimeout is how long one agent call may take, in seconds; a
// program runs longer than that without blocking it (guest-exec returns at
// once, guest-exec-status is polled).
const agentCallTimeout = 30

// GuestAgent talks to the QEMU guest agent of one running domain.
type GuestAgent struct {
	c   *libvirtconn.Client
	dom libvirt.Domain
}

// Agent returns the guest agent of the domain id.
func (d Domain) Agent(id string) (GuestAgent, error) {
	dom, err := domainRef(id)
	if err != nil {
		return GuestAgent{}, err
	}
	return GuestAgent{c: d.c, dom: dom}, nil
}

// ExecResult is how a program run in the guest ended.
type ExecResult struct {
	ExitCode       int
	Stdout, Stderr string
}

// command runs one agent command (a JSON object) and returns its "return"
// member.
func (g GuestAgent) command(ctx context.Context, execute string, args any) (json.RawMessage, error) {
	req := map[string]any{"execute": execute}
	if args != nil {
		req["arguments"] = args
	}
	b, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	var out libvirt.OptString
	err = g.c.Do(ctx, func(l *libvirt.Libvirt) error {
		var err error
		out, err = l.QEMUDomainAgentCommand(g.dom, string(b), agentCallTimeout, 0)
		return err
	})
	if err != nil {
		return nil, agentError(err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: the guest agent sent no reply", execute)
	}
	var reply struct {
		Return json.RawMessage `json:"return"`
	}
	if err := json.Unmarshal([]byte(out[0]), &reply); err != nil {
		return nil, fmt.Errorf("%s: unexpected reply %q: %w", execute, out[0], err)
	}
	return reply.Return, nil
}

// agentError tells an unreachable agent (ErrAgentUnavailable) from a
// command that failed.
func agentError(err error) error {
	var le *libvirtconn.Error
	if errors.As(err, &le) {
		switch le.Code {
		case libvirt.ErrAgentUnresponsive, libvirt.ErrAgentCommandTimeout, libvirt.ErrArgumentUnsupported, libvirt.ErrOperationInvalid,
			libvirt.ErrNoSupport: // a driver without guest agents (test:///)
			return fmt.Errorf("%w: %v", ErrAgentUnavailable, err)
		}
	}
	return err
}

// Ping checks that the guest agent answers.
func (g GuestAgent) Ping(ctx context.Context) error {
	_, err := g.command(ctx, "guest-ping", nil)
	return err
}

// Exec runs path with args in the guest (guest-exec, the agent searching
// its PATH), feeds it stdin, and waits until it exits or ctx ends. A
// program that is not installed fails with ErrCommandMissing.
func (g GuestAgent) Exec(ctx context.Context, path string, args []string, stdin []byte) (ExecResult, error) {
	execArgs := map[string]any{"path": path, "arg": args, "capture-output": true}
	if args == nil {
		execArgs["arg"] = []string{}
	}
	if stdin != nil {
		execArgs["input-data"] = base64.StdEncoding.EncodeToString(stdin)
	}
	ret, err := g.command(ctx, "guest-exec", execArgs)
	if err != nil {
		if msg := err.Error(); strings.Contains(msg, "No such file or directory") || strings.Contains(msg, "Failed to execute child process") {
			return ExecResult{}, fmt.Errorf("%s: %w", path, ErrCommandMissing)
		}
		return ExecResult{}, fmt.Errorf("running %s in the guest: %w", path, err)
	}
	var started struct {
		Pid int `json:"pid"`
	}
	if err := json.Unmarshal(ret, &started); err != nil || started.Pid == 0 {
		return ExecResult{}, fmt.Errorf("guest-exec %s: unexpected reply %s", path, ret)
	}
	for {
		ret, err := g.command(ctx, "guest-exec-status", map[string]any{"pid": started.Pid})
		if err != nil {
			return ExecResult{}, fmt.Errorf("waiting for %s in the guest: %w", path, err)
		}
		var st struct {
			Exited   bool   `json:"exited"`
			ExitCode int    `json:"exitcode"`
			Signal   int    `json:"signal"`
			OutData  string `json:"out-data"`
			ErrData  string `json:"err-data"`
		}
		if err := json.Unmarshal(ret, &st); err != nil {
			return ExecResult{}, fmt.Errorf("guest-exec-status %s: unexpected reply %s", path, ret)
		}
		if st.Exited {
			out, _ := base64.StdEncoding.DecodeString(st.OutData)
			errOut, _ := base64.StdEncoding.DecodeString(st.ErrData)
			res := ExecResult{ExitCode: st.ExitCode, Stdout: string(out), Stderr: string(errOut)}
			if st.Signal != 0 {
				return res, fmt.Errorf("%s was killed by signal %d in the guest", path, st.Signal)
			}
			return res, nil
		}
		select {
		case <-ctx.Done():
			return ExecResult{}, fmt.Errorf("waiting for %s in the guest: %w", path, ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}
