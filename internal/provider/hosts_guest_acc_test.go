package provider

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/digitalocean/go-libvirt"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

const mhGuest = "tfacc-mh-guest"

// testAccHostsGuestConfig is the test guest (booted as e2e_guest_acc_test.go
// does, without network) with its root disk a qcow2 overlay of the guest
// image in the tfacc pool, which both hosts define over the same folder: the
// storage a live migration needs.
func testAccHostsGuestConfig(uriB, guestDir, consoleLog, host string, running bool) string {
	guest := testGuest{
		Name: mhGuest, Host: host, GuestDir: guestDir, Running: running,
		Disks:      []string{testGuestRootVolumeDisk},
		ConsoleLog: consoleLog, Agent: true,
	}
	return testAccHostsProvider(uriB) + renderConfig(`
resource "libvirt_volume" "root" {
  name          = "{{.Name}}-root.qcow2"
  host          = "a"
  pool          = {{q .Pool}}
  target        = { format = { type = "qcow2" } }
  backing_store = { path = "{{.GuestDir}}/root.qcow2", format = { type = "qcow2" } }
}
`, map[string]string{"Name": mhGuest, "Pool": testAccPool(), "GuestDir": guestDir}) + guest.config()
}

// TestAccHosts_guestMovesLive boots the test guest on host a and moves it to
// host b by changing its host: a live migration planned as an in-place
// update. Throughout, the guest agent answers (a poller pings it every 250 ms
// wherever it runs) and its uptime keeps growing: the guest never restarted.
// The UUID stays, host a keeps no definition. The guest is then stopped on b
// and moved back stopped (define on a, undefine on b). Every plan after an
// apply is empty; destroy leaves nothing on either host.
func TestAccHosts_guestMovesLive(t *testing.T) {
	uriB := testAccURIB(t)
	guestDir := e2eGuestDir(t)

	work, err := os.MkdirTemp("/var/tmp", mhGuest+".")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(work) })
	if err := os.Chmod(work, 0o755); err != nil {
		t.Fatal(err)
	}
	consoleLog := filepath.Join(work, "console.log")
	t.Cleanup(func() {
		if t.Failed() {
			if b, err := os.ReadFile(consoleLog); err == nil {
				t.Logf("guest console (last 3000 bytes):\n%s", tail(string(b), 3000))
			}
		}
	})
	rootVol := mhGuest + "-root.qcow2"
	removeDomainEverywhere(t, uriB, mhGuest)
	onHost(t, testAccURI(), func(l *libvirt.Libvirt) error {
		if p, err := l.StoragePoolLookupByName(testAccPool()); err == nil {
			if v, err := l.StorageVolLookupByName(p, rootVol); err == nil {
				t.Logf("removing volume %s left behind", rootVol)
				return l.StorageVolDelete(v, 0)
			}
		}
		return nil
	})

	var uuid string
	var uptimeBefore float64
	var uptimeAt time.Time
	var stepStarted time.Time
	poll := &agentPoller{name: mhGuest, uris: map[string]string{"a": testAccURI(), "b": uriB}}
	t.Cleanup(func() { poll.stop() })

	inPlace := resource.ConfigPlanChecks{
		PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("libvirt_domain.guest", plancheck.ResourceActionUpdate)},
		PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
	}
	sameUUID := func(s *terraform.State) error {
		if got := s.RootModule().Resources["libvirt_domain.guest"].Primary.ID; got != uuid {
			return fmt.Errorf("domain UUID %s, was %s", got, uuid)
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkGoneFromBoth(t, uriB, []string{mhGuest}, nil, nil, []string{testAccPool() + "/" + rootVol}),
		Steps: []resource.TestStep{
			{
				Config: testAccHostsGuestConfig(uriB, guestDir, consoleLog, "a", true),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(
					checkDomainOn(t, uriB, mhGuest, "a", true),
					func(s *terraform.State) error {
						uuid = s.RootModule().Resources["libvirt_domain.guest"].Primary.ID
						start := time.Now()
						if err := waitAgent(testAccURI(), mhGuest, 5*time.Minute); err != nil {
							return err
						}
						t.Logf("guest agent answers on host a %v after the apply", time.Since(start).Round(time.Second))
						up, err := guestUptime(testAccURI(), mhGuest)
						if err != nil {
							return err
						}
						uptimeBefore, uptimeAt = up, time.Now()
						t.Logf("guest uptime on host a: %.1f s", up)
						poll.start()
						time.Sleep(2 * time.Second) // pings before the move
						return nil
					},
				),
			},
			{
				PreConfig:        func() { stepStarted = time.Now() },
				Config:           testAccHostsGuestConfig(uriB, guestDir, consoleLog, "b", true),
				ConfigPlanChecks: inPlace,
				Check: resource.ComposeTestCheckFunc(
					func(*terraform.State) error {
						t.Logf("apply of the move (plan, migration, read back): %v", time.Since(stepStarted).Round(10*time.Millisecond))
						time.Sleep(2 * time.Second) // pings after the move
						return nil
					},
					checkDomainOn(t, uriB, mhGuest, "b", true),
					sameUUID,
					func(*terraform.State) error {
						r := poll.stop()
						t.Logf("guest agent during the move: %d pings answered (%d on a, %d on b), %d unanswered; longest silence %v",
							r.ok["a"]+r.ok["b"], r.ok["a"], r.ok["b"], r.failed, r.longestGap.Round(10*time.Millisecond))
						if !r.bSeen.IsZero() && !r.aGone.IsZero() {
							t.Logf("migration time (host b has the domain .. host a has none, polled): %v", r.aGone.Sub(r.bSeen).Round(10*time.Millisecond))
						}
						if r.ok["a"] == 0 || r.ok["b"] == 0 {
							return fmt.Errorf("the guest agent did not answer on both hosts: a %d, b %d", r.ok["a"], r.ok["b"])
						}
						if r.longestGap > 20*time.Second {
							return fmt.Errorf("the guest agent was silent for %v during the move", r.longestGap)
						}
						up, err := guestUptime(uriB, mhGuest)
						if err != nil {
							return err
						}
						elapsed := time.Since(uptimeAt).Seconds()
						t.Logf("guest uptime on host b: %.1f s (%.1f s before the move, %.1f s ago)", up, uptimeBefore, elapsed)
						if up <= uptimeBefore {
							return fmt.Errorf("guest uptime %.1f s on host b, %.1f s %.0f s ago on host a: the guest restarted", up, uptimeBefore, elapsed)
						}
						return nil
					},
				),
			},
			{
				Config: testAccHostsGuestConfig(uriB, guestDir, consoleLog, "b", false),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: checkDomainOn(t, uriB, mhGuest, "b", false),
			},
			{
				PreConfig:        func() { stepStarted = time.Now() },
				Config:           testAccHostsGuestConfig(uriB, guestDir, consoleLog, "a", false),
				ConfigPlanChecks: inPlace,
				Check: resource.ComposeTestCheckFunc(
					func(*terraform.State) error {
						t.Logf("apply of the stopped move b -> a: %v", time.Since(stepStarted).Round(10*time.Millisecond))
						return nil
					},
					checkDomainOn(t, uriB, mhGuest, "a", false),
					sameUUID,
				),
			},
		},
	})
}

// agentCommand runs one guest agent command on the domain at uri.
func agentCommand(ctx context.Context, c *libvirtconn.Client, name, cmd string, timeout int32) (string, error) {
	var out []string
	err := c.Do(ctx, func(l *libvirt.Libvirt) error {
		d, err := l.DomainLookupByName(name)
		if err != nil {
			return err
		}
		out, err = l.QEMUDomainAgentCommand(d, cmd, timeout, 0)
		return err
	})
	if err != nil {
		return "", err
	}
	if len(out) == 0 {
		return "", fmt.Errorf("agent command %s: empty reply", cmd)
	}
	return out[0], nil
}

func waitAgent(uri, name string, timeout time.Duration) error {
	c, err := libvirtconn.New(uri)
	if err != nil {
		return err
	}
	defer c.Close()
	deadline := time.Now().Add(timeout)
	for {
		_, err := agentCommand(context.Background(), c, name, `{"execute":"guest-ping"}`, 5)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the guest agent of %s did not answer within %v: %v", name, timeout, err)
		}
		time.Sleep(2 * time.Second)
	}
}

// guestUptime reads /proc/uptime in the guest (guest-exec).
func guestUptime(uri, name string) (float64, error) {
	c, err := libvirtconn.New(uri)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	ctx := context.Background()
	out, err := agentCommand(ctx, c, name, `{"execute":"guest-exec","arguments":{"path":"/bin/cat","arg":["/proc/uptime"],"capture-output":true}}`, 10)
	if err != nil {
		return 0, err
	}
	var started struct {
		Return struct{ Pid int } `json:"return"`
	}
	if err := json.Unmarshal([]byte(out), &started); err != nil || started.Return.Pid == 0 {
		return 0, fmt.Errorf("guest-exec: unexpected reply %s", out)
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		out, err := agentCommand(ctx, c, name, fmt.Sprintf(`{"execute":"guest-exec-status","arguments":{"pid":%d}}`, started.Return.Pid), 10)
		if err != nil {
			return 0, err
		}
		var st struct {
			Return struct {
				Exited  bool   `json:"exited"`
				OutData string `json:"out-data"`
			} `json:"return"`
		}
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			return 0, err
		}
		if !st.Return.Exited {
			continue
		}
		b, _ := base64.StdEncoding.DecodeString(st.Return.OutData)
		f := strings.Fields(string(b))
		if len(f) == 0 {
			return 0, fmt.Errorf("/proc/uptime: %q", b)
		}
		return strconv.ParseFloat(f[0], 64)
	}
	return 0, fmt.Errorf("cat /proc/uptime did not exit within 30 s")
}

// agentPoller pings the guest agent every 250 ms on whichever host runs the
// domain and notes when host b first has the domain and when host a no
// longer has it.
type agentPoller struct {
	name string
	uris map[string]string

	mu      sync.Mutex
	cancel  context.CancelFunc
	done    chan struct{}
	result  pollResult
	lastOK  time.Time
	stopped bool
}

type pollResult struct {
	ok           map[string]int
	failed       int
	longestGap   time.Duration
	bSeen, aGone time.Time
}

func (p *agentPoller) start() {
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel, p.done = cancel, make(chan struct{})
	p.result.ok = map[string]int{}
	clients := map[string]*libvirtconn.Client{}
	for h, u := range p.uris {
		c, err := libvirtconn.New(u)
		if err == nil {
			clients[h] = c
		}
	}
	go func() {
		defer close(p.done)
		defer func() {
			for _, c := range clients {
				c.Close()
			}
		}()
		for ctx.Err() == nil {
			now := time.Now()
			answered := ""
			for _, h := range []string{"b", "a"} {
				c := clients[h]
				if c == nil {
					continue
				}
				var active bool
				found := c.Do(ctx, func(l *libvirt.Libvirt) error {
					d, err := l.DomainLookupByName(p.name)
					if err != nil {
						return err
					}
					st, _, err := l.DomainGetState(d, 0)
					active = err == nil && libvirt.DomainState(st) == libvirt.DomainRunning
					return err
				}) == nil
				p.mu.Lock()
				if h == "b" && found && p.result.bSeen.IsZero() {
					p.result.bSeen = now
				}
				if h == "a" && !found && p.result.aGone.IsZero() {
					p.result.aGone = now
				}
				p.mu.Unlock()
				if !found || !active || answered != "" {
					continue
				}
				pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
				if _, err := agentCommand(pctx, c, p.name, `{"execute":"guest-ping"}`, 2); err == nil {
					answered = h
				}
				cancel()
			}
			p.mu.Lock()
			if answered != "" {
				p.result.ok[answered]++
				if !p.lastOK.IsZero() {
					if gap := time.Since(p.lastOK); gap > p.result.longestGap {
						p.result.longestGap = gap
					}
				}
				p.lastOK = time.Now()
			} else {
				p.result.failed++
			}
			p.mu.Unlock()
			select {
			case <-ctx.Done():
			case <-time.After(250 * time.Millisecond):
			}
		}
	}()
}

// stop ends the poller (once) and returns what it saw.
func (p *agentPoller) stop() pollResult {
	p.mu.Lock()
	if p.cancel == nil || p.stopped {
		r := p.result
		p.mu.Unlock()
		return r
	}
	p.stopped = true
	p.mu.Unlock()
	p.cancel()
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	if gap := time.Since(p.lastOK); !p.lastOK.IsZero() && gap > p.result.longestGap {
		p.result.longestGap = gap
	}
	return p.result
}
