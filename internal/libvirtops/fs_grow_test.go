package libvirtops

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// fakeGuest answers the programs growFilesystem runs from a table keyed by
// "program arg arg..."; a program without an entry is missing. It records
// the calls and the stdin each got.
type fakeGuest struct {
	answers map[string][]ExecResult // several answers: one per call, in order
	calls   []string
	stdin   map[string]string
}

func (f *fakeGuest) Exec(_ context.Context, path string, args []string, stdin []byte) (ExecResult, error) {
	key := strings.Join(append([]string{path}, args...), " ")
	f.calls = append(f.calls, key)
	if stdin != nil {
		if f.stdin == nil {
			f.stdin = map[string]string{}
		}
		f.stdin[key] = string(stdin)
	}
	for k, a := range f.answers {
		if k == key || (strings.HasSuffix(k, "*") && strings.HasPrefix(key, strings.TrimSuffix(k, "*"))) {
			if len(a) == 0 {
				return ExecResult{}, fmt.Errorf("%s: no more answers", key)
			}
			r := a[0]
			if len(a) > 1 {
				f.answers[k] = a[1:]
			}
			return r, nil
		}
	}
	return ExecResult{}, fmt.Errorf("%s: %w", path, ErrCommandMissing)
}

const findmntRoot = "findmnt --noheadings --raw --bytes --output SOURCE,FSTYPE,TARGET,SIZE --target /"

func ok(stdout string) ExecResult { return ExecResult{Stdout: stdout} }

func TestGrowFilesystemWholeDisk(t *testing.T) {
	g := &fakeGuest{answers: map[string][]ExecResult{
		findmntRoot: {ok("/dev/vda ext4 / 1000\n"), ok("/dev/vda ext4 / 3000\n")},
		"lsblk --nodeps --noheadings --raw --output TYPE,PKNAME /dev/vda": {ok("disk \n")},
		"resize2fs /dev/vda": {ok("")},
	}}
	var steps []string
	got, err := growFilesystem(context.Background(), g, "/", func(s string) { steps = append(steps, s) })
	if err != nil {
		t.Fatal(err)
	}
	if got.SizeBefore != 1000 || got.SizeAfter != 3000 || got.Partition != "" || got.Device != "/dev/vda" {
		t.Errorf("growth = %+v", got)
	}
	for _, c := range g.calls {
		if strings.HasPrefix(c, "growpart") || strings.HasPrefix(c, "sfdisk") {
			t.Errorf("a whole-disk filesystem ran %q", c)
		}
	}
	if len(steps) == 0 || !strings.Contains(strings.Join(steps, "\n"), "whole disk") {
		t.Errorf("progress did not say the disk has no partition: %q", steps)
	}
}

func TestGrowFilesystemPartitionGrowpart(t *testing.T) {
	g := &fakeGuest{answers: map[string][]ExecResult{
		findmntRoot: {ok("/dev/vdb1 xfs /srv\\x20data 1000\n"), ok("/dev/vdb1 xfs /srv\\x20data 2000\n")},
		"lsblk --nodeps --noheadings --raw --output TYPE,PKNAME /dev/vdb1": {ok("part vdb\n")},
		"cat /sys/class/block/vdb1/partition":                              {ok("1\n")},
		"growpart /dev/vdb 1":                                              {ok("CHANGED: partition=1\n")},
		"xfs_growfs /srv data":                                             {ok("")},
	}}
	got, err := growFilesystem(context.Background(), g, "/", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Partition != "/dev/vdb1" || got.Mountpoint != "/srv data" || got.SizeAfter != 2000 {
		t.Errorf("growth = %+v", got)
	}
	if want := []string{"growpart /dev/vdb 1", "xfs_growfs /srv data"}; !containsInOrder(g.calls, want) {
		t.Errorf("calls %q lack %q in order", g.calls, want)
	}
}

func TestGrowFilesystemPartitionSfdiskFallback(t *testing.T) {
	g := &fakeGuest{answers: map[string][]ExecResult{
		findmntRoot: {ok("/dev/vdb2 ext4 / 1000\n"), ok("/dev/vdb2 ext4 / 2000\n")},
		"lsblk --nodeps --noheadings --raw --output TYPE,PKNAME /dev/vdb2": {ok("part vdb\n")},
		"cat /sys/class/block/vdb2/partition":                              {ok("2\n")},
		"sfdisk --no-reread --force -N 2 /dev/vdb":                         {ok("")},
		"partx --update --nr 2 /dev/vdb":                                   {ok("")},
		"resize2fs /dev/vdb2":                                              {ok("")},
	}}
	if _, err := growFilesystem(context.Background(), g, "/", nil); err != nil {
		t.Fatal(err)
	}
	want := []string{"growpart /dev/vdb 2", "sfdisk --no-reread --force -N 2 /dev/vdb", "partx --update --nr 2 /dev/vdb", "resize2fs /dev/vdb2"}
	if !containsInOrder(g.calls, want) {
		t.Errorf("calls %q lack %q in order", g.calls, want)
	}
	if in := g.stdin["sfdisk --no-reread --force -N 2 /dev/vdb"]; in != ", +\n" {
		t.Errorf("sfdisk got %q on stdin, want the keep-start, grow-to-end line", in)
	}
}

func TestGrowFilesystemGrowpartNoChange(t *testing.T) {
	g := &fakeGuest{answers: map[string][]ExecResult{
		findmntRoot: {ok("/dev/vda1 ext4 / 1000\n"), ok("/dev/vda1 ext4 / 1000\n")},
		"lsblk --nodeps --noheadings --raw --output TYPE,PKNAME /dev/vda1": {ok("part vda\n")},
		"cat /sys/class/block/vda1/partition":                              {ok("1\n")},
		"growpart /dev/vda 1":                                              {{ExitCode: 1, Stdout: "NOCHANGE: partition 1 is size 2048. it cannot be grown\n"}},
		"resize2fs /dev/vda1":                                              {ok("")},
	}}
	if _, err := growFilesystem(context.Background(), g, "/", nil); err != nil {
		t.Fatalf("a partition that already fills its disk is not an error: %v", err)
	}
}

func TestGrowFilesystemMissingTools(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answers map[string][]ExecResult
		want    string
	}{
		{"resize2fs", map[string][]ExecResult{
			findmntRoot: {ok("/dev/vda ext4 / 1000\n")},
			"lsblk --nodeps --noheadings --raw --output TYPE,PKNAME /dev/vda": {ok("disk \n")},
		}, "resize2fs is not installed in the guest (package e2fsprogs)"},
		{"no partitioning tool", map[string][]ExecResult{
			findmntRoot: {ok("/dev/vda1 ext4 / 1000\n")},
			"lsblk --nodeps --noheadings --raw --output TYPE,PKNAME /dev/vda1": {ok("part vda\n")},
			"cat /sys/class/block/vda1/partition":                              {ok("1\n")},
		}, "growpart or sfdisk is not installed in the guest (package cloud-guest-utils (growpart) or fdisk (sfdisk))"},
		{"findmnt", map[string][]ExecResult{}, "findmnt is not installed in the guest (package util-linux)"},
		{"unsupported filesystem", map[string][]ExecResult{
			findmntRoot: {ok("/dev/vda vfat / 1000\n")},
		}, "/ on /dev/vda is vfat: growing handles ext2, ext3, ext4, xfs and btrfs"},
		{"lvm", map[string][]ExecResult{
			findmntRoot: {ok("/dev/mapper/vg-root ext4 / 1000\n")},
			"lsblk --nodeps --noheadings --raw --output TYPE,PKNAME /dev/mapper/vg-root": {ok("lvm dm-0\n")},
		}, `is a block device of type "lvm"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := growFilesystem(context.Background(), &fakeGuest{answers: tc.answers}, "/", nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
			if strings.Contains(tc.want, "not installed") && !errors.Is(err, ErrCommandMissing) {
				t.Errorf("error %v does not wrap ErrCommandMissing", err)
			}
		})
	}
}

func containsInOrder(calls, want []string) bool {
	i := 0
	for _, c := range calls {
		if i < len(want) && c == want[i] {
			i++
		}
	}
	return i == len(want)
}
