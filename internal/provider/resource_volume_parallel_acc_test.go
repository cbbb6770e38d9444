package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/digitalocean/go-libvirt"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// serveProviderForTofu runs the provider in this process and returns the
// TF_REATTACH_PROVIDERS value that lets a tofu command use it.
func serveProviderForTofu(t *testing.T) string {
	t.Helper()
	// the in-process server logs every RPC at trace level to stderr otherwise
	for _, v := range []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_PROVIDER"} {
		if os.Getenv(v) == "" {
			t.Setenv(v, "off")
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cfgCh := make(chan *plugin.ReattachConfig, 1)
	closeCh := make(chan struct{})
	factory := ProtocolServer("test") // the server that ships
	go func() {
		if err := tf6server.Serve("registry.opentofu.org/virtxml/libvirt", factory, tf6server.WithDebug(ctx, cfgCh, closeCh),
			tf6server.WithGoPluginLogger(nil)); err != nil {
			t.Errorf("serving provider: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); <-closeCh })
	var cfg *plugin.ReattachConfig
	select {
	case cfg = <-cfgCh:
	case <-time.After(30 * time.Second):
		t.Fatal("provider server did not start")
	}
	entry := map[string]any{
		"Protocol": string(cfg.Protocol), "ProtocolVersion": cfg.ProtocolVersion, "Pid": cfg.Pid, "Test": true,
		"Addr": map[string]string{"Network": cfg.Addr.Network(), "String": cfg.Addr.String()},
	}
	b, _ := json.Marshal(map[string]any{
		"registry.opentofu.org/virtxml/libvirt": entry,
		"registry.terraform.io/virtxml/libvirt": entry,
	})
	return string(b)
}

// tofu runs one tofu command in dir with the in-process provider.
func tofu(t *testing.T, dir, reattach string, args ...string) {
	t.Helper()
	cmd := exec.Command(os.Getenv("TF_ACC_TERRAFORM_PATH"), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TF_REATTACH_PROVIDERS="+reattach, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("tofu %v: %s", args, time.Since(start).Round(time.Millisecond))
	if err != nil {
		t.Fatalf("tofu %v: %v\n%s", args, err, out)
	}
}

// TestAccVolume_parallel30 creates and destroys 30 uploaded and 30 empty
// volumes in one pool with tofu -parallelism=30. Each uploaded volume has a
// URL of its own (a query string), since volumes of one URL in one apply
// share a single download (TestAccVolume_sharedDownload). The testing framework always
// passes -parallelism=10, so this test drives tofu itself (the provider runs
// in this process, attached through TF_REATTACH_PROVIDERS).
func TestAccVolume_parallel30(t *testing.T) {
	testAccPreCheck(t)
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	l := testAccStorageConn(t)
	srv := newContentServer(t, map[string][]byte{"small.img": randomBytes(t, 256<<10)})
	srv.delay = 2 * time.Second // long enough that all creates overlap on a loaded machine
	dir := t.TempDir()
	config := "\n" + virtxmlRequiredProviders + testAccProviderConfig() + renderConfig(`
resource "libvirt_volume" "many" {
  count  = 30
  name   = "tfacc-par-${count.index}.img"
  pool   = {{q .Pool}}
  # a URL of its own per volume: volumes of one URL share one download
  create = { content = { url = "{{.URL}}/len/small.img?copy=${count.index}" } }
}
resource "libvirt_volume" "empty" {
  count    = 30
  name     = "tfacc-par-empty-${count.index}.qcow2"
  pool     = {{q .Pool}}
  capacity = 16777216
  target   = { format = { type = "qcow2" } }
}
`, map[string]string{"Pool": testAccPool(), "URL": srv.URL})
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	var names []string
	for i := 0; i < 30; i++ {
		names = append(names, fmt.Sprintf("tfacc-par-%d.img", i), fmt.Sprintf("tfacc-par-empty-%d.qcow2", i))
	}
	// Registered first, so it runs last: whatever tofu destroy could not
	// remove (libvirtd restarted by another test, say) is deleted here, so
	// that no later run finds leftovers.
	t.Cleanup(func() { deleteVolumesNamed(t, names) })
	reattach := serveProviderForTofu(t)
	tofu(t, dir, reattach, "init", "-input=false", "-no-color")
	destroyed := false
	t.Cleanup(func() {
		if !destroyed {
			tofu(t, dir, reattach, "destroy", "-auto-approve", "-input=false", "-no-color", "-parallelism=30")
		}
	})
	tofu(t, dir, reattach, "apply", "-auto-approve", "-input=false", "-no-color", "-parallelism=30")
	t.Logf("downloads in flight at once: %d", srv.maxSeen.Load())
	if srv.maxSeen.Load() <= 10 {
		t.Errorf("only %d downloads ran at once: parallelism 30 did not reach the provider", srv.maxSeen.Load())
	}
	p, err := l.StoragePoolLookupByName(testAccPool())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if _, err := l.StorageVolLookupByName(p, name); err != nil {
			t.Errorf("volume %s missing after apply: %v", name, err)
		}
	}
	// post-apply plan must be empty (-detailed-exitcode: 2 means changes)
	cmd := exec.Command(os.Getenv("TF_ACC_TERRAFORM_PATH"), "plan", "-detailed-exitcode", "-input=false", "-no-color")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TF_REATTACH_PROVIDERS="+reattach)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("plan after apply is not empty or failed: %v\n%s", err, out)
	}
	tofu(t, dir, reattach, "destroy", "-auto-approve", "-input=false", "-no-color", "-parallelism=30")
	destroyed = true
	if err := checkNoVolume(l, names...); err != nil {
		t.Error(err)
	}
}

// TestAccStorageExamples_validate checks that the documented pool and volume
// examples are valid against the provider's schema (tofu validate).
func TestAccStorageExamples_validate(t *testing.T) {
	testAccPreCheck(t)
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	reattach := serveProviderForTofu(t)
	for _, example := range []string{"libvirt_pool", "libvirt_volume"} {
		src, err := os.ReadFile(filepath.Join("..", "..", "examples", "resources", example, "resource.tf"))
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "main.tf"), append([]byte(virtxmlRequiredProviders), src...), 0o644); err != nil {
			t.Fatal(err)
		}
		tofu(t, dir, reattach, "init", "-input=false", "-no-color")
		tofu(t, dir, reattach, "validate", "-no-color")
	}
}

// deleteVolumesNamed removes the named volumes from the test pool if they
// exist, through a fresh connection that re-dials a restarted libvirtd.
func deleteVolumesNamed(t *testing.T, names []string) {
	c, err := libvirtconn.New(testAccURI())
	if err != nil {
		t.Error(err)
		return
	}
	defer c.Close()
	for attempt := 0; attempt < 10; attempt++ {
		err = c.Do(context.Background(), func(l *libvirt.Libvirt) error {
			p, err := l.StoragePoolLookupByName(testAccPool())
			if err != nil {
				return err
			}
			for _, name := range names {
				v, err := l.StorageVolLookupByName(p, name)
				if libvirtconn.IsNotFound(err) {
					continue
				}
				if err != nil {
					return err
				}
				t.Logf("deleting leftover volume %s", name)
				if err := l.StorageVolDelete(v, 0); err != nil && !libvirtconn.IsNotFound(err) {
					return err
				}
			}
			return nil
		})
		if err == nil {
			return
		}
		time.Sleep(3 * time.Second)
	}
	t.Errorf("leftover volumes could not be deleted: %v", err)
}
