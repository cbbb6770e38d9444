package cloudinit

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kdomanski/iso9660"
)

var fullConfig = Config{
	UserData:      "#cloud-config\nhostname: seed-test\npassword: s3cret\n",
	MetaData:      "instance-id: iid-seed-test\nlocal-hostname: seed-test\n",
	NetworkConfig: "version: 2\nethernets:\n  eth0:\n    dhcp4: true\n",
	VendorData:    "#cloud-config\npackages: [htop]\n",
}

// readImage returns label and name -> content of every file in the root of an
// image, as kdomanski/iso9660's reader (Rock Ridge aware) sees them.
func readImage(t *testing.T, img []byte) (string, map[string]string) {
	t.Helper()
	image, err := iso9660.OpenImage(bytes.NewReader(img))
	if err != nil {
		t.Fatalf("OpenImage: %v", err)
	}
	label, err := image.Label()
	if err != nil {
		t.Fatalf("Label: %v", err)
	}
	root, err := image.RootDir()
	if err != nil {
		t.Fatalf("RootDir: %v", err)
	}
	children, err := root.GetChildren()
	if err != nil {
		t.Fatalf("GetChildren: %v", err)
	}
	files := map[string]string{}
	for _, c := range children {
		if c.IsDir() {
			t.Errorf("unexpected directory %q in image", c.Name())
			continue
		}
		data, err := io.ReadAll(c.Reader())
		if err != nil {
			t.Fatalf("reading %s: %v", c.Name(), err)
		}
		files[c.Name()] = string(data)
	}
	return label, files
}

func TestBuildReadBackAllFiles(t *testing.T) {
	img, err := Build(fullConfig)
	if err != nil {
		t.Fatal(err)
	}
	label, files := readImage(t, img)
	if label != "cidata" {
		t.Errorf("label = %q, want cidata", label)
	}
	want := map[string]string{
		"user-data":      fullConfig.UserData,
		"meta-data":      fullConfig.MetaData,
		"network-config": fullConfig.NetworkConfig,
		"vendor-data":    fullConfig.VendorData,
	}
	if len(files) != len(want) {
		t.Errorf("image holds %d files %v, want %d", len(files), keys(files), len(want))
	}
	for name, content := range want {
		got, ok := files[name]
		if !ok {
			t.Errorf("file %q missing; image has %v", name, keys(files))
			continue
		}
		if got != content {
			t.Errorf("%s = %q, want %q", name, got, content)
		}
	}
}

func TestBuildOmitsEmptyOptionalFilesButKeepsEmptyMetaData(t *testing.T) {
	img, err := Build(Config{UserData: "#cloud-config\n"})
	if err != nil {
		t.Fatal(err)
	}
	_, files := readImage(t, img)
	if got, ok := files["meta-data"]; !ok || got != "" {
		t.Errorf("meta-data = %q (present %v), want an empty file", got, ok)
	}
	if files["user-data"] != "#cloud-config\n" {
		t.Errorf("user-data = %q", files["user-data"])
	}
	for _, name := range []string{"network-config", "vendor-data"} {
		if _, ok := files[name]; ok {
			t.Errorf("%s written although empty", name)
		}
	}
	if len(files) != 2 {
		t.Errorf("files = %v, want user-data and meta-data only", keys(files))
	}
}

func TestBuildLargeFileSpansSectors(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 1000) // 16000 bytes, 8 sectors
	img, err := Build(Config{UserData: big, MetaData: "instance-id: x\n"})
	if err != nil {
		t.Fatal(err)
	}
	_, files := readImage(t, img)
	if files["user-data"] != big {
		t.Errorf("user-data of %d bytes read back as %d bytes", len(big), len(files["user-data"]))
	}
	if files["meta-data"] != "instance-id: x\n" {
		t.Errorf("meta-data = %q", files["meta-data"])
	}
}

func TestBuildIsReproducible(t *testing.T) {
	a, err := Build(fullConfig)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Build(fullConfig)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatal("two builds of the same config differ")
	}
	if Checksum(a) != Checksum(b) {
		t.Fatal("checksums of identical images differ")
	}
}

func TestBuildDiffersForEveryInput(t *testing.T) {
	base, err := Build(fullConfig)
	if err != nil {
		t.Fatal(err)
	}
	variants := map[string]Config{}
	c := fullConfig
	c.UserData += "#"
	variants["user_data"] = c
	c = fullConfig
	c.MetaData += "#"
	variants["meta_data"] = c
	c = fullConfig
	c.NetworkConfig += "#"
	variants["network_config"] = c
	c = fullConfig
	c.VendorData += "#"
	variants["vendor_data"] = c
	c = fullConfig
	c.VendorData = ""
	variants["vendor_data removed"] = c
	for name, cfg := range variants {
		img, err := Build(cfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if bytes.Equal(img, base) {
			t.Errorf("changing %s did not change the image", name)
		}
	}
}

// isoinfo is Debian's genisoimage reader, an independent check of the layout.
func isoinfoPath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("isoinfo")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("isoinfo not found (apt-get install genisoimage); required when CI=true")
		}
		t.Skip("isoinfo not installed (apt-get install genisoimage)")
	}
	return p
}

func runIsoinfo(t *testing.T, isoinfo string, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(isoinfo, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("isoinfo %v: %v\n%s", args, err, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Errorf("isoinfo %v wrote to stderr: %s", args, stderr.String())
	}
	for _, bad := range []string{"arning", "rror", "hort read", "Bad"} {
		if strings.Contains(stdout.String(), bad) {
			t.Errorf("isoinfo %v output contains %q:\n%s", args, bad, stdout.String())
		}
	}
	return stdout.String()
}

func TestIsoinfoAcceptsImage(t *testing.T) {
	isoinfo := isoinfoPath(t)
	img, err := Build(fullConfig)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "seed.iso")
	if err := os.WriteFile(path, img, 0o600); err != nil {
		t.Fatal(err)
	}

	info := runIsoinfo(t, isoinfo, "-d", "-i", path)
	for _, want := range []string{"Volume id: cidata", "Rock Ridge signatures version 1 found", "Logical block size is: 2048"} {
		if !strings.Contains(info, want) {
			t.Errorf("isoinfo -d lacks %q:\n%s", want, info)
		}
	}

	listing := runIsoinfo(t, isoinfo, "-R", "-l", "-i", path)
	for _, name := range []string{"user-data", "meta-data", "network-config", "vendor-data"} {
		if !strings.Contains(listing, " "+name+" ") && !strings.HasSuffix(strings.TrimSpace(listing), " "+name) {
			t.Errorf("isoinfo -R -l does not list %s:\n%s", name, listing)
		}
	}

	// Extract through the Rock Ridge names: proves names and extents agree.
	for name, want := range map[string]string{
		"user-data":      fullConfig.UserData,
		"meta-data":      fullConfig.MetaData,
		"network-config": fullConfig.NetworkConfig,
		"vendor-data":    fullConfig.VendorData,
	} {
		got := runIsoinfo(t, isoinfo, "-R", "-i", path, "-x", "/"+name)
		if got != want {
			t.Errorf("isoinfo -x /%s = %q, want %q", name, got, want)
		}
	}
}

func TestWriteFileIsPrivateAndAtomic(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "cloudinit")
	img, err := Build(fullConfig)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, FileName("seed", Checksum(img)))
	if err := WriteFile(path, img); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600 (user data may hold secrets)", st.Mode().Perm())
	}
	sum, err := FileChecksum(path)
	if err != nil {
		t.Fatal(err)
	}
	if sum != Checksum(img) {
		t.Errorf("file checksum %s != image checksum %s", sum, Checksum(img))
	}
	if !strings.HasPrefix(filepath.Base(path), "seed-"+sum[:16]) {
		t.Errorf("file name %s is not derived from checksum %s", filepath.Base(path), sum)
	}
	assertOnlyFiles(t, dir, filepath.Base(path))

	if err := RemoveFile(path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("file still there after RemoveFile: %v", err)
	}
	if err := RemoveFile(path); err != nil {
		t.Errorf("RemoveFile of a missing file: %v", err)
	}
	if _, err := FileChecksum(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("FileChecksum of missing file = %v, want ErrNotExist", err)
	}
}

func TestWriteFileFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	// The target is an existing non-empty directory, so the final rename fails
	// after the temporary file was written.
	target := filepath.Join(dir, "seed.iso")
	if err := os.MkdirAll(filepath.Join(target, "occupied"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(target, []byte("image")); err == nil {
		t.Fatal("WriteFile onto a directory succeeded")
	}
	assertOnlyFiles(t, dir, "seed.iso")
}

func assertOnlyFiles(t *testing.T, dir string, want ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Errorf("directory holds %v, want %v", names, want)
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func BenchmarkBuild(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		img, err := Build(fullConfig)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(img)))
	}
}
