package provider

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// TestAccVolume_sparseUpload uploads a 512 MiB raw image holding 12 MiB of
// data (some in runs shorter than a skipped hole, a hole at the end) from a
// sparse local file and the same bytes over http (a stream: runs of zeros
// are found by reading): both volumes hold exactly the image, have its size,
// and stay sparse in the pool (allocated far below the size).
func TestAccVolume_sparseUpload(t *testing.T) {
	l := testAccStorageConn(t)
	dir := t.TempDir()
	const size = 512 << 20
	img := filepath.Join(dir, "sparse.raw")
	f, err := os.Create(img)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	chunk := randomBytes(t, 2<<20)
	// data at 0, two pieces 4 MiB apart (a short zero run between them), and
	// pieces far apart; the last 100 MiB are a hole
	for _, off := range []int64{0, 6 << 20, 12 << 20, 200 << 20, 300 << 20, 410 << 20} {
		if _, err := f.WriteAt(chunk, off); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	want, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	srv := newContentServer(t, map[string][]byte{"sparse.raw": want})
	names := []string{"tfacc-sparse-file.raw", "tfacc-sparse-http.raw"}
	config := testConfig(`
resource "libvirt_volume" "file" {
  name   = {{q .FileName}}
  pool   = {{q .Pool}}
  create = { content = { url = {{q .Image}} } }
}
resource "libvirt_volume" "http" {
  name   = {{q .HTTPName}}
  pool   = {{q .Pool}}
  create = { content = { url = "{{.URL}}/nolen/sparse.raw" } }
}
`, map[string]any{"Pool": testAccPool(), "Image": img, "FileName": names[0], "HTTPName": names[1], "URL": srv.URL})
	sparseAndEqual := func(name string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			p := filepath.Join(testAccPoolDir(t, l), name)
			got, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if !bytes.Equal(got, want) {
				return fmt.Errorf("volume %s holds %d bytes that are not the image's %d", name, len(got), len(want))
			}
			var st syscall.Stat_t
			if err := syscall.Stat(p, &st); err != nil {
				return err
			}
			allocated := st.Blocks * 512
			t.Logf("%s: %d MiB allocated for %d MiB", name, allocated>>20, size>>20)
			if allocated > 64<<20 {
				return fmt.Errorf("volume %s allocates %d bytes for 12 MiB of data: not sparse", name, allocated)
			}
			return nil
		}
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             volumeCheckDestroy(l, names...),
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("libvirt_volume.file", tfjsonpath.New("capacity"), knownvalue.Int64Exact(size)),
				statecheck.ExpectKnownValue("libvirt_volume.http", tfjsonpath.New("capacity"), knownvalue.Int64Exact(size)),
			},
			Check:            resource.ComposeTestCheckFunc(sparseAndEqual(names[0]), sparseAndEqual(names[1])),
			ConfigPlanChecks: emptyPlanAfterApply,
		}},
	})
}
