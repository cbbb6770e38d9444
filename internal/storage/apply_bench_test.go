package storage

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"text/template"
	"time"

	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// TestApplyThroughput is the whole-apply part of make bench-upload: in the
// same rounds, alternating, it times
//
//   - virsh: `virsh vol-create-as` + `virsh vol-upload` of a 1 GiB raw file
//     (random data), as a user would by hand;
//   - apply: `tofu apply` of one libvirt_volume with that file as
//     create.content.url, with the provider built from this checkout (start-up,
//     plan, create, read back: everything a user waits for);
//   - empty: `tofu apply` of an empty 1 GiB raw volume, tofu's and the
//     provider's fixed cost;
//   - transfer: the provider's upload alone (CreateVolume), no tofu.
//
// The order of the four turns each round, and the dirty pages of each step
// are written back (sync) before the next starts: the kernel throttles a
// writer that finds another's dirty pages, which favoured whichever went
// first. It prints per figure the range over the rounds and the best, and the ratios
// virsh/apply (whole apply, target as close to 0.8 as tofu's start-up
// allows) and virsh/(apply - empty) and virsh/transfer (target >= 1.0), with
// the load average before and after (the machine may be shared). It fails
// only when a step fails. STORAGE_BENCH=1 enables it; STORAGE_BENCH_MIB
// changes the size, STORAGE_BENCH_ROUNDS the rounds (default 3); TOFU
// names the OpenTofu binary.
func TestApplyThroughput(t *testing.T) {
	if os.Getenv("STORAGE_BENCH") == "" {
		t.Skip("benchmark: set STORAGE_BENCH=1 (make bench-upload)")
	}
	tofu := os.Getenv("TOFU")
	if tofu == "" {
		t.Skip("set TOFU to an OpenTofu binary (make bench-upload reads it from the test environment)")
	}
	uri := envOr("LIBVIRT_TEST_URI", "qemu:///system")
	poolName := envOr("LIBVIRT_TEST_POOL", "tfacc")
	mib, _ := strconv.Atoi(envOr("STORAGE_BENCH_MIB", "1024"))
	size := int64(mib) << 20
	rounds, _ := strconv.Atoi(envOr("STORAGE_BENCH_ROUNDS", "3"))
	ctx := context.Background()

	client, err := libvirtconn.New(uri)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	l, err := client.Libvirt(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := l.StoragePoolLookupByName(poolName)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "bench.img")
	writePatternFile(t, file, size)

	// the provider of this checkout, found by tofu through dev_overrides
	bin := filepath.Join(dir, "bin")
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "terraform-provider-libvirt"), ".")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the provider: %v\n%s", err, out)
	}
	cliConfig := filepath.Join(dir, "cli.tfrc")
	writeFile(t, cliConfig, benchConfig(t, benchCLIConfig, map[string]any{"Bin": bin}))
	// names unique to this run: other benchmarks may share the pool
	prefix := fmt.Sprintf("bench-apply-%d", os.Getpid())
	work := func(name string, volume map[string]any) func(args ...string) time.Duration {
		wd := filepath.Join(dir, name)
		volume["URI"], volume["Name"], volume["Pool"] = uri, prefix+"-"+name+".img", poolName
		writeFile(t, filepath.Join(wd, "main.tf"), benchConfig(t, benchVolumeConfig, volume))
		return func(args ...string) time.Duration {
			cmd := exec.Command(tofu, args...)
			cmd.Dir = wd
			cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+cliConfig, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1", "TF_LOG=")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			start := time.Now()
			if err := cmd.Run(); err != nil {
				t.Fatalf("tofu %v in %s: %v\n%s", args, name, err, out.String())
			}
			return time.Since(start)
		}
	}
	upload := work("upload", map[string]any{"URL": file})
	empty := work("empty", map[string]any{"Capacity": size})
	apply := []string{"apply", "-auto-approve", "-input=false", "-no-color"}
	destroy := []string{"destroy", "-auto-approve", "-input=false", "-no-color"}
	t.Cleanup(func() {
		for _, n := range []string{"upload", "empty"} {
			if v, err := l.StorageVolLookupByName(pool, prefix+"-"+n+".img"); err == nil {
				_ = l.StorageVolDelete(v, 0)
			}
		}
	})
	remove := func(name string) {
		if v, err := l.StorageVolLookupByName(pool, name); err == nil {
			_ = l.StorageVolDelete(v, 0)
		}
	}
	var locks PoolLocks
	transfer := func(name string) time.Duration {
		start := time.Now()
		src, err := Open(ctx, file)
		if err != nil {
			t.Fatal(err)
		}
		_, err = CreateVolume(ctx, l, &locks, VolumeRequest{Pool: pool, LockKey: poolName, Def: &libvirtxml.StorageVolume{Name: name}}, src)
		src.Close()
		if err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	}

	loadBefore := loadAverage()
	virshT, applyT, emptyT, transferT := make([]time.Duration, rounds), make([]time.Duration, rounds), make([]time.Duration, rounds), make([]time.Duration, rounds)
	for round := 0; round < rounds; round++ {
		nv, nt := fmt.Sprintf("%s-virsh-%d.img", prefix, round), fmt.Sprintf("%s-transfer-%d.img", prefix, round)
		steps := []func(){
			func() { virshT[round] = virshUpload(t, uri, poolName, nv, size, file); remove(nv) },
			func() { applyT[round] = upload(apply...); upload(destroy...) },
			func() { emptyT[round] = empty(apply...); empty(destroy...) },
			func() { transferT[round] = transfer(nt); remove(nt) },
		}
		// the order turns each round, and each step starts without the dirty
		// pages of the one before (the kernel throttles the writer that
		// finds them)
		for i := range steps {
			settle()
			steps[(i+round)%len(steps)]()
		}
		t.Logf("round %d: virsh %s, tofu apply %s, empty apply %s, transfer %s", round, ms(virshT[round]), ms(applyT[round]),
			ms(emptyT[round]), ms(transferT[round]))
	}
	loadAfter := loadAverage()
	best := func(d []time.Duration) time.Duration { return slices.Min(d) }
	span := func(d []time.Duration) string { return fmt.Sprintf("%s-%s", ms(slices.Min(d)), ms(slices.Max(d))) }
	// the ratios of each round, in the same round: load changes between rounds
	var whole, net, alone []float64
	for i := range virshT {
		whole = append(whole, virshT[i].Seconds()/applyT[i].Seconds())
		if d := applyT[i] - emptyT[i]; d > 0 {
			net = append(net, virshT[i].Seconds()/d.Seconds())
		}
		alone = append(alone, virshT[i].Seconds()/transferT[i].Seconds())
	}
	fmt.Printf("whole apply, %d MiB raw upload, %d rounds (load average %s before, %s after):\n"+
		"  virsh vol-create-as + vol-upload %s (best %s)\n"+
		"  tofu apply                       %s (best %s)\n"+
		"  tofu apply of an empty volume    %s (best %s)\n"+
		"  provider transfer alone          %s (best %s)\n"+
		"  ratio virsh / tofu apply %s (best-of %.2f; target as close to 0.80 as tofu's start-up allows)\n"+
		"  ratio virsh / (apply - empty apply) %s (best-of %.2f; target >= 1.00)\n"+
		"  ratio virsh / transfer alone %s (best-of %.2f; target >= 1.00)\n",
		mib, rounds, loadBefore, loadAfter,
		span(virshT), ms(best(virshT)), span(applyT), ms(best(applyT)), span(emptyT), ms(best(emptyT)), span(transferT), ms(best(transferT)),
		ratioSpan(whole), best(virshT).Seconds()/best(applyT).Seconds(),
		ratioSpan(net), best(virshT).Seconds()/(best(applyT)-best(emptyT)).Seconds(),
		ratioSpan(alone), best(virshT).Seconds()/best(transferT).Seconds())
}

// settle writes dirty pages back before a timed step, so that no step pays
// for the writes of the one before.
func settle() { syscall.Sync() }

func ms(d time.Duration) string { return fmt.Sprintf("%d ms", d.Milliseconds()) }

func ratioSpan(r []float64) string {
	if len(r) == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f-%.2f", slices.Min(r), slices.Max(r))
}

// loadAverage is the 1, 5 and 15 minute load averages ("?" when unknown).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil || len(bytes.Fields(b)) < 3 {
		return "?"
	}
	return string(bytes.Join(bytes.Fields(b)[:3], []byte(" ")))
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The configurations the apply benchmark runs tofu with.
const (
	benchCLIConfig = `provider_installation {
  dev_overrides {
    "registry.opentofu.org/virtxml/libvirt" = {{q .Bin}}
  }
  direct {}
}
`
	// a volume uploaded from URL, or an empty raw one of Capacity bytes
	benchVolumeConfig = `terraform {
  required_providers {
    libvirt = { source = "virtxml/libvirt" }
  }
}
provider "libvirt" {
  uri = {{q .URI}}
}
resource "libvirt_volume" "v" {
  name = {{q .Name}}
  pool = {{q .Pool}}
{{- if .URL}}
  create = { content = { url = {{q .URL}} } }
{{- else}}
  capacity = {{.Capacity}}
  target = { format = { type = "raw" } }
{{- end}}
}
`
)

// benchConfig renders a configuration template; q quotes a string as HCL does.
func benchConfig(t testing.TB, text string, data map[string]any) string {
	t.Helper()
	var b strings.Builder
	tmpl := template.Must(template.New("config").Funcs(template.FuncMap{"q": strconv.Quote}).Parse(text))
	if err := tmpl.Execute(&b, data); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
