package provider

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// TestAccVolume_compressedContent uploads a gzip-compressed qcow2 image (over
// http, without Content-Length), an xz-compressed raw image (a local file)
// and a zstd-compressed raw image (over http): each volume holds the
// decompressed image, with the format and size of the decompressed bytes. The
// names end in .img: compression is found by the bytes, not the name.
func TestAccVolume_compressedContent(t *testing.T) {
	l := testAccStorageConn(t)
	dir := t.TempDir()
	raw := randomBytes(t, 5_000_003)
	qcow := makeQcow2(t, dir, "img.qcow2", "80M")
	qdata, err := os.ReadFile(qcow)
	if err != nil {
		t.Fatal(err)
	}
	var gz, xzBuf, zst bytes.Buffer
	gw := gzip.NewWriter(&gz)
	_, _ = gw.Write(qdata)
	_ = gw.Close()
	xw, err := xz.NewWriter(&xzBuf)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = xw.Write(raw)
	_ = xw.Close()
	zw, _ := zstd.NewWriter(&zst)
	_, _ = zw.Write(raw)
	_ = zw.Close()
	xzFile := filepath.Join(dir, "raw-xz.img")
	mustWrite(t, xzFile, xzBuf.String())
	srv := newContentServer(t, map[string][]byte{"qcow-gz.img": gz.Bytes(), "raw-zst.img": zst.Bytes()})
	names := []string{"tfacc-gz-qcow2.img", "tfacc-xz-raw.img", "tfacc-zst-raw.img"}
	config := testConfig(`
resource "libvirt_volume" "gz_qcow2" {
  name   = {{q .GzQcow2}}
  pool   = {{q .Pool}}
  create = { content = { url = "{{.URL}}/nolen/qcow-gz.img" } }
}
resource "libvirt_volume" "xz_raw" {
  name   = {{q .XzRaw}}
  pool   = {{q .Pool}}
  create = { content = { url = {{q .XzFile}} } }
}
resource "libvirt_volume" "zst_raw" {
  name   = {{q .ZstRaw}}
  pool   = {{q .Pool}}
  create = { content = { url = "{{.URL}}/len/raw-zst.img" } }
}
`, map[string]any{"Pool": testAccPool(), "URL": srv.URL, "GzQcow2": names[0], "XzRaw": names[1], "ZstRaw": names[2], "XzFile": xzFile})
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             volumeCheckDestroy(l, names...),
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("libvirt_volume.gz_qcow2", tfjsonpath.New("target").AtMapKey("format").AtMapKey("type"), knownvalue.StringExact("qcow2")),
				statecheck.ExpectKnownValue("libvirt_volume.gz_qcow2", tfjsonpath.New("capacity"), knownvalue.Int64Exact(80<<20)),
				statecheck.ExpectKnownValue("libvirt_volume.xz_raw", tfjsonpath.New("capacity"), knownvalue.Int64Exact(int64(len(raw)))),
				statecheck.ExpectKnownValue("libvirt_volume.zst_raw", tfjsonpath.New("capacity"), knownvalue.Int64Exact(int64(len(raw)))),
			},
			Check: resource.ComposeTestCheckFunc(
				checkVolumeContent(l, names[1], raw),
				checkVolumeContent(l, names[2], raw),
				func(*terraform.State) error {
					out, err := exec.Command("qemu-img", "info", "--output=json", filepath.Join(testAccPoolDir(t, l), names[0])).CombinedOutput()
					if err != nil || !bytes.Contains(out, []byte(`"format": "qcow2"`)) || !bytes.Contains(out, []byte(`"virtual-size": 83886080`)) {
						return fmt.Errorf("the gzip-compressed qcow2 did not become a qcow2 volume: %v: %s", err, out)
					}
					return nil
				},
			),
			ConfigPlanChecks: emptyPlanAfterApply,
		}},
	})
}
