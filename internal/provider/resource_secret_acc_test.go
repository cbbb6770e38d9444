package provider

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/digitalocean/go-libvirt"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtops"
)

// secretPrefix starts the usage id of every secret these tests define.
const secretPrefix = "tfacc-sec"

// secretRandom is a random hex string: secret values the tests can search
// for in outputs without matching anything else.
func secretRandom(t *testing.T) string {
	t.Helper()
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// secretRemoveLeftovers undefines the secrets an interrupted run left whose
// usage id starts with prefix.
func secretRemoveLeftovers(t *testing.T, prefix string) {
	t.Helper()
	testAccLibvirt(t, func(l *libvirt.Libvirt) error {
		all, _, err := l.ConnectListAllSecrets(1, 0)
		if err != nil {
			return err
		}
		for _, s := range all {
			if strings.HasPrefix(s.UsageID, prefix) || strings.Contains(s.UsageID, "/"+prefix) {
				_ = l.SecretUndefine(s)
			}
		}
		return nil
	})
}

// secretCheckGone is a CheckDestroy: libvirt has no secret whose usage id
// has prefix, and none with a UUID the test recorded.
func secretCheckGone(t *testing.T, prefix string, uuids *[]string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		var left []string
		testAccLibvirt(t, func(l *libvirt.Libvirt) error {
			left = nil
			all, _, err := l.ConnectListAllSecrets(1, 0)
			if err != nil {
				return err
			}
			for _, s := range all {
				id := libvirtops.UUIDString(s.UUID)
				if strings.HasPrefix(s.UsageID, prefix) || strings.Contains(s.UsageID, "/"+prefix) {
					left = append(left, id+" "+s.UsageID)
				}
				for _, u := range *uuids {
					if u == id {
						left = append(left, id+" (recorded by the test)")
					}
				}
			}
			return nil
		})
		if len(left) > 0 {
			return fmt.Errorf("secrets left in libvirt: %s", strings.Join(left, ", "))
		}
		return nil
	}
}

// secretLive reads the secret's XML and value from libvirt.
func secretLive(t *testing.T, uuid string) (*libvirtxml.Secret, []byte, error) {
	u, err := libvirtops.ParseUUID(uuid)
	if err != nil {
		return nil, nil, err
	}
	var doc libvirtxml.Secret
	var value []byte
	var opErr error
	testAccLibvirt(t, func(l *libvirt.Libvirt) error {
		x, err := l.SecretGetXMLDesc(libvirt.Secret{UUID: u}, 0)
		if err != nil {
			opErr = err
			return nil
		}
		if err := doc.Unmarshal(x); err != nil {
			return err
		}
		if doc.Private != "yes" {
			value, opErr = l.SecretGetValue(libvirt.Secret{UUID: u}, 0)
		}
		return nil
	})
	return &doc, value, opErr
}

// secretCheckLive records the secret's UUID (from state) and checks what
// libvirt holds: the value (for a secret that is not private), the
// description and the private flag.
func secretCheckLive(t *testing.T, address string, uuids *[]string, wantValue []byte, wantDesc, wantPrivate string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[address]
		if !ok {
			return fmt.Errorf("%s not in state", address)
		}
		id := rs.Primary.ID
		*uuids = append(*uuids, id)
		doc, value, err := secretLive(t, id)
		if err != nil {
			return fmt.Errorf("reading secret %s from libvirt: %w", id, err)
		}
		if doc.UUID != id {
			return fmt.Errorf("libvirt reports UUID %s for secret %s", doc.UUID, id)
		}
		if doc.Description != wantDesc {
			return fmt.Errorf("libvirt's description is %q, want %q", doc.Description, wantDesc)
		}
		if doc.Private != wantPrivate {
			return fmt.Errorf("libvirt's private is %q, want %q", doc.Private, wantPrivate)
		}
		if wantPrivate != "yes" && !bytes.Equal(value, wantValue) {
			return fmt.Errorf("libvirt holds another value than configured (%d bytes, want %d)", len(value), len(wantValue))
		}
		return nil
	}
}

// secretSetLive changes the value of the secret in state out of band.
func secretSetLive(t *testing.T, id *string, value []byte) {
	u, err := libvirtops.ParseUUID(*id)
	if err != nil {
		t.Fatal(err)
	}
	testAccLibvirt(t, func(l *libvirt.Libvirt) error { return l.SecretSetValue(libvirt.Secret{UUID: u}, value, 0) })
}

// testSecret is the libvirt_secret "test" of the secret tests, of usage
// type ceph.
type testSecret struct {
	Usage       string // the ceph usage name
	Description string
	// ValueAttr is "value" or "value_base64", the attribute that sets Value;
	// "": the secret has no value.
	ValueAttr, Value string
	Private          string // "yes" or "no"; "": not set
	Ephemeral        string // "yes" or "no"; "": not set
}

func secretConfig(s testSecret) string {
	return testConfig(`
resource "libvirt_secret" "test" {
{{- if .Ephemeral}}
  ephemeral   = {{q .Ephemeral}}
{{- end}}
  description = {{q .Description}}
{{- if .Private}}
  private     = {{q .Private}}
{{- end}}
  usage = {
    type = "ceph"
    name = {{q .Usage}}
  }
  {{if .ValueAttr}}{{.ValueAttr}} = {{q .Value}}{{end}}
}
`, s)
}

// TestAccSecret_basic creates a Ceph-usage secret that is not private,
// changes its value and description in place (same UUID, the value libvirt
// holds checked each time), restores a value changed with
// SecretSetValue out of band, switches to value_base64 with binary bytes,
// turns the secret private in place, then replaces it where libvirt refuses
// a change in place (private back to no, another usage name, the value
// removed), imports it by UUID and by usage id, and leaves nothing behind.
func TestAccSecret_basic(t *testing.T) {
	usage := secretPrefix + "-basic"
	secretRemoveLeftovers(t, usage)
	v1, v2, oob := "one-"+secretRandom(t), "two-"+secretRandom(t), []byte("changed-outside-"+secretRandom(t))
	bin := []byte{0x00, 0xff, 0x10, 0x80, 'k', 'e', 'y'}
	b64 := base64.StdEncoding.EncodeToString(bin)
	var uuids []string
	var current string
	sameUUID := statecheck.CompareValue(compare.ValuesSame())
	addr := "libvirt_secret.test"
	recordID := func(s *terraform.State) error {
		current = s.RootModule().Resources[addr].Primary.ID
		return nil
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             secretCheckGone(t, usage, &uuids),
		Steps: []resource.TestStep{
			{
				Config: secretConfig(testSecret{Usage: usage, Description: "first", ValueAttr: "value", Value: v1}),
				Check:  resource.ComposeTestCheckFunc(secretCheckLive(t, addr, &uuids, []byte(v1), "first", "no"), recordID),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringRegexp(uuidRegexp)),
					statecheck.CompareValuePairs(addr, tfjsonpath.New("id"), addr, tfjsonpath.New("uuid"), compare.ValuesSame()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("value"), knownvalue.StringExact(v1)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("ephemeral"), knownvalue.Null()),
					sameUUID.AddStateValue(addr, tfjsonpath.New("id")),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				// value and description: in place, same UUID
				Config: secretConfig(testSecret{Usage: usage, Description: "second", ValueAttr: "value", Value: v2}),
				Check:  secretCheckLive(t, addr, &uuids, []byte(v2), "second", "no"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{sameUUID.AddStateValue(addr, tfjsonpath.New("id"))},
			},
			{
				// a value changed outside shows as drift and is set back in place
				PreConfig: func() { secretSetLive(t, &current, oob) },
				Config:    secretConfig(testSecret{Usage: usage, Description: "second", ValueAttr: "value", Value: v2}),
				Check:     secretCheckLive(t, addr, &uuids, []byte(v2), "second", "no"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{sameUUID.AddStateValue(addr, tfjsonpath.New("id"))},
			},
			{
				// binary bytes through value_base64, in place
				Config: secretConfig(testSecret{Usage: usage, Description: "second", ValueAttr: "value_base64", Value: b64}),
				Check:  secretCheckLive(t, addr, &uuids, bin, "second", "no"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					sameUUID.AddStateValue(addr, tfjsonpath.New("id")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("value"), knownvalue.Null()),
				},
			},
			{
				ResourceName:      addr,
				ImportState:       true,
				ImportStateVerify: true,
				// libvirt's XML has no value; import leaves it null, the next apply sets it
				ImportStateVerifyIgnore: []string{"value", "value_base64"},
			},
			{
				ResourceName:            addr,
				ImportState:             true,
				ImportStateId:           usage, // by usage id
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"value", "value_base64"},
			},
			{
				// no -> yes private: libvirt allows it in place
				Config: secretConfig(testSecret{Usage: usage, Description: "second", ValueAttr: "value_base64", Value: b64, Private: "yes"}),
				Check:  secretCheckLive(t, addr, &uuids, nil, "second", "yes"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{sameUUID.AddStateValue(addr, tfjsonpath.New("id"))},
			},
			{
				// yes -> no: libvirt refuses it, the secret is replaced
				Config: secretConfig(testSecret{Usage: usage, Description: "second", ValueAttr: "value", Value: v1, Private: "no"}),
				Check:  secretCheckLive(t, addr, &uuids, []byte(v1), "second", "no"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				// another usage id: libvirt refuses it for the UUID, replaced
				Config: secretConfig(testSecret{Usage: usage + "-2", Description: "second", ValueAttr: "value", Value: v1, Private: "no"}),
				Check:  secretCheckLive(t, addr, &uuids, []byte(v1), "second", "no"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				// the value removed: libvirt cannot unset one, replaced by a secret without value
				Config: secretConfig(testSecret{Usage: usage + "-2", Description: "second", Private: "no"}),
				Check: resource.ComposeTestCheckFunc(recordID, func(*terraform.State) error {
					uuids = append(uuids, current)
					_, value, err := secretLive(t, current)
					if err == nil {
						return fmt.Errorf("the new secret has a value (%d bytes); want none", len(value))
					}
					return nil
				}),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				// persistent -> ephemeral: replaced, so that libvirt keeps no file of it
				Config: secretConfig(testSecret{Usage: usage + "-2", Description: "second", ValueAttr: "value", Value: v1, Private: "no", Ephemeral: "yes"}),
				Check: resource.ComposeTestCheckFunc(secretCheckLive(t, addr, &uuids, []byte(v1), "second", "no"), recordID,
					func(*terraform.State) error { return secretCheckFiles(uuids, "") }),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(addr, tfjsonpath.New("ephemeral"), knownvalue.StringExact("yes"))},
			},
			{
				// ephemeral -> persistent: in place, libvirt writes its file
				Config: secretConfig(testSecret{Usage: usage + "-2", Description: "second", ValueAttr: "value", Value: v1, Private: "no", Ephemeral: "no"}),
				Check: resource.ComposeTestCheckFunc(secretCheckLive(t, addr, &uuids, []byte(v1), "second", "no"),
					func(*terraform.State) error { return secretCheckFiles(uuids, current) }),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
	})
	if n := len(secretUnique(uuids)); n != 5 {
		t.Errorf("the test saw %d secret UUIDs (%v); want 5: the first kept through the in-place updates, then 4 replacements", n, secretUnique(uuids))
	}
	if err := secretCheckFiles(uuids, ""); err != nil {
		t.Errorf("after destroy: %v", err)
	}
}

// secretConfigDir is where the test libvirtd (qemu:///system on this
// machine) keeps persistent secrets.
const secretConfigDir = "/etc/libvirt/secrets"

// secretCheckFiles fails when libvirt keeps a persistent-secret file for any
// of uuids except keep (which must have one): a file of an undefined or
// ephemeral secret brings it back when libvirtd restarts.
func secretCheckFiles(uuids []string, keep string) error {
	if _, err := os.Stat(secretConfigDir); err != nil {
		return fmt.Errorf("libvirt's secret directory: %w", err)
	}
	for _, u := range secretUnique(uuids) {
		_, err := os.Stat(filepath.Join(secretConfigDir, u+".xml"))
		switch {
		case u == keep && err != nil:
			return fmt.Errorf("the persistent secret %s has no file in %s: %v", u, secretConfigDir, err)
		case u != keep && err == nil:
			return fmt.Errorf("libvirt keeps %s/%s.xml, a secret that is gone or ephemeral: it would come back when libvirtd restarts", secretConfigDir, u)
		}
	}
	return nil
}

func secretUnique(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// TestAccSecret_valueNeverShown runs tofu itself (plan, apply, a changing
// plan and apply, destroy) with TF_LOG=trace and proves that no value (two
// successive `value`s, one `value_wo`) appears in any output nor in the
// trace log, as text, base64 or hex, and the write-only one not in the state
// file; the values do reach libvirt.
func TestAccSecret_valueNeverShown(t *testing.T) {
	testAccPreCheck(t)
	usage := secretPrefix + "-hidden"
	secretRemoveLeftovers(t, usage)
	var uuids []string
	t.Cleanup(func() { secretRemoveLeftovers(t, usage) })
	v1, v2 := "first-"+secretRandom(t), "second-"+secretRandom(t)
	wo := "writeonly-" + secretRandom(t)
	dir := t.TempDir()
	config := func(v string) string {
		return renderConfig(`
resource "libvirt_secret" "hidden" {
  usage = { type = "ceph", name = {{q .Usage}} }
  value = {{q .Value}}
}
resource "libvirt_secret" "hidden_wo" {
  usage            = { type = "ceph", name = "{{.Usage}}-wo" }
  value_wo         = {{q .WriteOnlyValue}}
  value_wo_version = 1
}
output "id" { value = libvirt_secret.hidden.id }
output "wo_id" { value = libvirt_secret.hidden_wo.id }
`, map[string]string{"Usage": usage, "Value": v, "WriteOnlyValue": wo})
	}
	tofu := tofuWorkdir(t, dir, config(v1))
	logFile := filepath.Join(dir, "trace.log")
	t.Setenv("TF_LOG", "trace")
	t.Setenv("TF_LOG_PATH", logFile)
	var outputs []string
	run := func(args ...string) string {
		out, code := tofu(append(args, "-input=false", "-no-color")...)
		outputs = append(outputs, out)
		if code != 0 && !(args[0] == "plan" && code == 2) {
			t.Fatalf("tofu %s failed (exit %d):\n%s", strings.Join(args, " "), code, out)
		}
		return out
	}
	run("plan")
	run("apply", "-auto-approve")
	id, _ := tofu("output", "-raw", "id")
	woID, _ := tofu("output", "-raw", "wo_id")
	uuids = append(uuids, id, woID)
	if _, value, err := secretLive(t, id); err != nil || string(value) != v1 {
		t.Fatalf("libvirt does not hold the first value for %s (err %v)", id, err)
	}
	if _, value, err := secretLive(t, woID); err != nil || string(value) != wo {
		t.Fatalf("libvirt does not hold the write-only value for %s (err %v)", woID, err)
	}
	// a write-only value is not in the state either (value is: sensitive, not secret from the state)
	if st := secretMustRead(t, filepath.Join(dir, "work", "terraform.tfstate")); strings.Contains(st, wo) || !strings.Contains(st, v1) {
		t.Fatalf("the state file holds the write-only value (%v) or lacks value (%v)", strings.Contains(st, wo), !strings.Contains(st, v1))
	}
	mustWrite(t, filepath.Join(dir, "work", "main.tf"), strings.Replace(secretMustRead(t, filepath.Join(dir, "work", "main.tf")), v1, v2, 1))
	plan := run("plan", "-detailed-exitcode")
	if !strings.Contains(plan, "(sensitive value)") || !strings.Contains(plan, "1 to change") {
		t.Fatalf("the plan of a new value should show one in-place change of a sensitive value:\n%s", plan)
	}
	run("apply", "-auto-approve")
	if _, value, err := secretLive(t, id); err != nil || string(value) != v2 {
		t.Fatalf("libvirt does not hold the second value for %s (err %v)", id, err)
	}
	run("destroy", "-auto-approve")
	if err := secretCheckGone(t, usage, &uuids)(nil); err != nil {
		t.Fatal(err)
	}
	trace := secretMustRead(t, logFile)
	if len(trace) < 10000 || !strings.Contains(trace, "[TRACE]") {
		t.Fatalf("the trace log has %d bytes and no [TRACE] line: TF_LOG did not reach tofu", len(trace))
	}
	if !strings.Contains(trace, "ApplyResourceChange") {
		t.Fatal("the trace log does not show the provider's apply calls")
	}
	for _, v := range []string{v1, v2, wo} {
		forms := []string{v, base64.StdEncoding.EncodeToString([]byte(v)), hex.EncodeToString([]byte(v))}
		for _, f := range forms {
			for i, out := range outputs {
				if strings.Contains(out, f) {
					t.Errorf("output %d of tofu contains the secret value (%q form):\n%s", i, f, out)
				}
			}
			if strings.Contains(trace, f) {
				t.Errorf("the trace log contains the secret value (%q form)", f)
			}
		}
	}
	t.Logf("searched %d tofu outputs and a %d-byte trace log", len(outputs), len(trace))
}

func secretMustRead(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// secretPoolPath is the target directory of the test pool.
func secretPoolPath(t *testing.T) string {
	t.Helper()
	x := mustVirsh(t, "pool-dumpxml", testAccPool())
	var pool libvirtxml.StoragePool
	if err := pool.Unmarshal(x); err != nil {
		t.Fatal(err)
	}
	if pool.Target == nil || pool.Target.Path == "" {
		t.Fatalf("pool %s has no target path", testAccPool())
	}
	return pool.Target.Path
}

// secretCheckLUKS proves the file is a LUKS container that the passphrase
// opens and another does not: the magic bytes, qemu-img's format, and
// qemu-io reading through the LUKS driver with each key.
func secretCheckLUKS(file, passphrase string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		f, err := os.Open(file)
		if err != nil {
			return err
		}
		magic := make([]byte, 6)
		_, err = f.Read(magic)
		f.Close()
		if err != nil {
			return err
		}
		if !bytes.Equal(magic, []byte("LUKS\xba\xbe")) {
			return fmt.Errorf("%s starts with %q, not the LUKS magic", file, magic)
		}
		info, err := exec.Command("qemu-img", "info", "--output=json", file).CombinedOutput()
		if err != nil {
			return fmt.Errorf("qemu-img info: %v: %s", err, info)
		}
		if !regexp.MustCompile(`"format":\s*"luks"`).Match(info) || !regexp.MustCompile(`"encrypted":\s*true`).Match(info) {
			return fmt.Errorf("qemu-img info does not report an encrypted luks image:\n%s", info)
		}
		open := func(key string) ([]byte, error) {
			return exec.Command("qemu-io", "--object", "secret,id=sec0,data="+key, "--image-opts",
				"driver=luks,key-secret=sec0,file.filename="+file, "-c", "read 0 512").CombinedOutput()
		}
		if out, err := open(passphrase); err != nil {
			return fmt.Errorf("the secret's passphrase does not open %s: %v: %s", file, err, out)
		}
		if out, err := open("not-the-passphrase"); err == nil {
			return fmt.Errorf("a wrong passphrase opens %s too: %s", file, out)
		}
		return nil
	}
}

// TestAccSecret_luksVolume creates a private secret with usage type volume
// and a LUKS-encrypted libvirt_volume whose target.encryption.secret names
// it: libvirt formats the volume with the secret's value as passphrase
// (checked with qemu-img and qemu-io). Destroy removes both.
func TestAccSecret_luksVolume(t *testing.T) {
	testAccPreCheck(t)
	name := secretPrefix + "-luks.img"
	removeStorageLeftovers(t, name)
	secretRemoveLeftovers(t, secretPrefix+"-luks")
	file := filepath.Join(secretPoolPath(t), name)
	passphrase := "luks-" + secretRandom(t)
	var uuids []string
	config := testConfig(`
resource "libvirt_secret" "luks" {
  description = "passphrase of {{.Volume}}"
  private     = "yes"
  usage       = { type = "volume", volume = {{q .File}} }
  value       = {{q .Passphrase}}
}

resource "libvirt_volume" "luks" {
  name          = {{q .Volume}}
  pool          = {{q .Pool}}
  capacity      = 16
  capacity_unit = "MiB"
  target = {
    format = { type = "raw" }
    encryption = {
      format = "luks"
      secret = { type = "passphrase", uuid = libvirt_secret.luks.id }
    }
  }
}
`, map[string]string{"Volume": name, "File": file, "Passphrase": passphrase, "Pool": testAccPool()})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy: resource.ComposeTestCheckFunc(secretCheckGone(t, secretPrefix+"-luks", &uuids), func(*terraform.State) error {
			if _, err := os.Stat(file); !os.IsNotExist(err) {
				return fmt.Errorf("%s is still there (%v)", file, err)
			}
			if out, err := virsh("vol-info", "--pool", testAccPool(), name); err == nil {
				return fmt.Errorf("libvirt still has volume %s:\n%s", name, out)
			}
			return nil
		}),
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: resource.ComposeTestCheckFunc(
					secretCheckLive(t, "libvirt_secret.luks", &uuids, nil, "passphrase of "+name, "yes"),
					func(s *terraform.State) error {
						id := s.RootModule().Resources["libvirt_secret.luks"].Primary.ID
						return testCheckVirshContains(name, "vol-dumpxml", "<encryption format='luks'>",
							fmt.Sprintf("<secret type='passphrase' uuid='%s'/>", id))
					},
					secretCheckLUKS(file, passphrase),
				),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.CompareValuePairs("libvirt_secret.luks", tfjsonpath.New("id"),
						"libvirt_volume.luks", tfjsonpath.New("target").AtMapKey("encryption").AtMapKey("secret").AtMapKey("uuid"), compare.ValuesSame()),
					statecheck.ExpectKnownValue("libvirt_secret.luks", tfjsonpath.New("usage").AtMapKey("volume"), knownvalue.StringExact(file)),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				ResourceName:      "libvirt_secret.luks",
				ImportState:       true,
				ImportStateId:     file, // the usage id of a volume secret
				ImportStateVerify: true,
				// libvirt never returns a private secret's value
				ImportStateVerifyIgnore: []string{"value"},
			},
		},
	})
}

// TestAccSecret_usageTaken: a secret whose usage another secret (defined
// with virsh, not in state) has fails with an error naming that secret's
// UUID as import id, and the failed create defines nothing. A value libvirt
// refuses (empty) undefines the just defined secret again.
func TestAccSecret_usageTaken(t *testing.T) {
	testAccPreCheck(t)
	usage := secretPrefix + "-taken"
	secretRemoveLeftovers(t, usage)
	t.Cleanup(func() { secretRemoveLeftovers(t, usage) })
	xmlFile := filepath.Join(t.TempDir(), "secret.xml")
	mustWrite(t, xmlFile, fmt.Sprintf(`<secret><usage type='ceph'><name>%s</name></usage></secret>`, usage))
	out := mustVirsh(t, "secret-define", xmlFile)
	m := regexp.MustCompile(`[0-9a-f-]{36}`).FindString(out)
	if m == "" {
		t.Fatalf("no UUID in %q", out)
	}
	countUsage := func(id string) int {
		n := 0
		testAccLibvirt(t, func(l *libvirt.Libvirt) error {
			n = 0
			all, _, err := l.ConnectListAllSecrets(1, 0)
			for _, s := range all {
				if s.UsageID == id {
					n++
				}
			}
			return err
		})
		return n
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      secretConfig(testSecret{Usage: usage, Description: "mine", ValueAttr: "value", Value: "x"}),
				ExpectError: regexp.MustCompile(`(?s)already has usage\s+ceph.*import block\s+\(id\s+=\s+"` + m + `"\)`),
			},
			{
				Config:      secretConfig(testSecret{Usage: usage + "-empty", Description: "empty", ValueAttr: "value", Value: ""}),
				ExpectError: regexp.MustCompile(`(?s)setting the value of secret.*undefined\s+again`),
			},
		},
	})
	if n := countUsage(usage); n != 1 {
		t.Errorf("%d secrets have usage %s; want only the one virsh defined", n, usage)
	}
	if n := countUsage(usage + "-empty"); n != 0 {
		t.Errorf("the failed create left %d secret(s) with usage %s-empty", n, usage)
	}
}

func secretWOConfig(usageName, value string, version int) string {
	return testConfig(`
resource "libvirt_secret" "wo" {
  usage            = { type = "ceph", name = {{q .Usage}} }
  value_wo         = {{q .Value}}
  value_wo_version = {{.Version}}
}
`, map[string]any{"Usage": usageName, "Value": value, "Version": version})
}

// secretCheckNotInState fails when any attribute of the resource in state
// holds one of the values.
func secretCheckNotInState(address string, values ...string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[address]
		if !ok {
			return fmt.Errorf("%s not in state", address)
		}
		for k, v := range rs.Primary.Attributes {
			for _, secret := range values {
				if strings.Contains(v, secret) {
					return fmt.Errorf("state attribute %s holds the write-only value", k)
				}
			}
		}
		return nil
	}
}

// TestAccSecret_writeOnly sets the value through value_wo: libvirt holds it,
// neither plan nor state does; a new value_wo alone plans nothing (and
// libvirt keeps the old value); a new value_wo_version sets it in place,
// same UUID. Import by UUID.
func TestAccSecret_writeOnly(t *testing.T) {
	usage := secretPrefix + "-wo"
	secretRemoveLeftovers(t, usage)
	v1, v2 := "wo1-"+secretRandom(t), "wo2-"+secretRandom(t)
	var uuids []string
	addr := "libvirt_secret.wo"
	sameUUID := statecheck.CompareValue(compare.ValuesSame())
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             secretCheckGone(t, usage, &uuids),
		Steps: []resource.TestStep{
			{
				Config: secretWOConfig(usage, v1, 1),
				Check: resource.ComposeTestCheckFunc(
					secretCheckLive(t, addr, &uuids, []byte(v1), "", "no"),
					secretCheckNotInState(addr, v1),
				),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("value_wo"), knownvalue.Null()),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("value_wo"), knownvalue.Null()),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("value_wo_version"), knownvalue.Int64Exact(1)),
					sameUUID.AddStateValue(addr, tfjsonpath.New("id")),
				},
			},
			{
				// a new write-only value alone: nothing to compare, no change
				Config: secretWOConfig(usage, v2, 1),
				Check:  secretCheckLive(t, addr, &uuids, []byte(v1), "", "no"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				// the version is the trigger: set in place
				Config: secretWOConfig(usage, v2, 2),
				Check: resource.ComposeTestCheckFunc(
					secretCheckLive(t, addr, &uuids, []byte(v2), "", "no"),
					secretCheckNotInState(addr, v1, v2),
				),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{sameUUID.AddStateValue(addr, tfjsonpath.New("id"))},
			},
			{
				ResourceName:      addr,
				ImportState:       true,
				ImportStateVerify: true,
				// the version lives only in the configuration and state, libvirt has no trace of it
				ImportStateVerifyIgnore: []string{"value_wo_version"},
			},
		},
	})
}
