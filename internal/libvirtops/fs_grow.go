package libvirtops

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
)

// Growing a guest's filesystem after its disk grew (a live volume resize):
// through the guest agent, the partition holding the filesystem grows to the
// end of its disk (growpart, else sfdisk and partx), then the filesystem to
// the end of its partition or disk (resize2fs, xfs_growfs, btrfs). A
// filesystem on a whole disk (no partition table) skips the first step.

// guestRunner runs programs in a guest (GuestAgent.Exec); tests fake it.
type guestRunner interface {
	Exec(ctx context.Context, path string, args []string, stdin []byte) (ExecResult, error)
}

// FsGrowth is what GrowFilesystem did.
type FsGrowth struct {
	Device, FSType, Mountpoint string
	// Partition is the partition that grew ("" for a whole-disk filesystem).
	Partition string
	// SizeBefore and SizeAfter are the filesystem's sizes in bytes.
	SizeBefore, SizeAfter uint64
}

// GrowFilesystem grows the filesystem holding path in the guest of the
// running domain id to fill its disk. report hears each step. A guest
// agent that does not answer fails with ErrAgentUnavailable, a missing
// tool with ErrCommandMissing, both with what to install.
func (d Domain) GrowFilesystem(ctx context.Context, id, fsPath string, report func(string)) (FsGrowth, error) {
	g, err := d.Agent(id)
	if err != nil {
		return FsGrowth{}, err
	}
	if err := g.Ping(ctx); err != nil {
		return FsGrowth{}, fmt.Errorf("%w. Growing a filesystem in the guest needs qemu-guest-agent running there and a "+
			"virtio channel org.qemu.guest_agent.0 in the domain", err)
	}
	return growFilesystem(ctx, g, fsPath, report)
}

func growFilesystem(ctx context.Context, g guestRunner, fsPath string, report func(string)) (FsGrowth, error) {
	if report == nil {
		report = func(string) {}
	}
	fs, err := findFilesystem(ctx, g, fsPath)
	if err != nil {
		return FsGrowth{}, err
	}
	out := FsGrowth{Device: fs.source, FSType: fs.fstype, Mountpoint: fs.target, SizeBefore: fs.size}
	report(fmt.Sprintf("%s holds %s (%s, %s)", fs.target, fs.source, fs.fstype, formatBytes(fs.size)))
	grow, ok := fsGrowers[fs.fstype]
	if !ok {
		return out, fmt.Errorf("%s on %s is %s: growing handles ext2, ext3, ext4, xfs and btrfs", fs.target, fs.source, fs.fstype)
	}

	part, err := partitionOf(ctx, g, fs.source)
	if err != nil {
		return out, err
	}
	if part.number > 0 {
		out.Partition = fs.source
		report(fmt.Sprintf("growing partition %d of %s", part.number, part.disk))
		if err := growPartition(ctx, g, part, report); err != nil {
			return out, err
		}
	} else {
		report(fmt.Sprintf("%s is a whole disk (no partition table): no partition to grow", fs.source))
	}

	report(fmt.Sprintf("growing the %s filesystem", fs.fstype))
	if err := runTool(ctx, g, grow.tool, grow.pkg, grow.args(fs)); err != nil {
		return out, err
	}
	after, err := findFilesystem(ctx, g, fsPath)
	if err != nil {
		return out, err
	}
	out.SizeAfter = after.size
	report(fmt.Sprintf("the filesystem on %s is %s (was %s)", fs.source, formatBytes(after.size), formatBytes(fs.size)))
	return out, nil
}

// mounted is one filesystem as findmnt reports it.
type mounted struct {
	source, fstype, target string
	size                   uint64
}

// findFilesystem asks findmnt (util-linux) which filesystem holds fsPath.
func findFilesystem(ctx context.Context, g guestRunner, fsPath string) (mounted, error) {
	res, err := g.Exec(ctx, "findmnt", []string{"--noheadings", "--raw", "--bytes", "--output", "SOURCE,FSTYPE,TARGET,SIZE", "--target", fsPath}, nil)
	if err != nil {
		return mounted{}, missingTool(err, "findmnt", "util-linux")
	}
	if res.ExitCode != 0 {
		return mounted{}, fmt.Errorf("findmnt --target %s in the guest: exit code %d: %s", fsPath, res.ExitCode, strings.TrimSpace(res.Stderr))
	}
	f := strings.Fields(strings.TrimSpace(res.Stdout))
	if len(f) != 4 {
		return mounted{}, fmt.Errorf("findmnt --target %s in the guest printed %q, not SOURCE FSTYPE TARGET SIZE", fsPath, res.Stdout)
	}
	size, err := strconv.ParseUint(f[3], 10, 64)
	if err != nil {
		return mounted{}, fmt.Errorf("findmnt --target %s in the guest: size %q: %w", fsPath, f[3], err)
	}
	return mounted{source: unescapeRaw(f[0]), fstype: f[1], target: unescapeRaw(f[2]), size: size}, nil
}

// unescapeRaw undoes the \xHH escapes of findmnt's and lsblk's --raw output.
func unescapeRaw(s string) string {
	if !strings.Contains(s, `\x`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && s[i+1] == 'x' {
			if n, err := strconv.ParseUint(s[i+2:i+4], 16, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// partition is where a filesystem's block device sits: number 0 for a
// whole disk.
type partition struct {
	disk   string // /dev/vda
	number int
}

// partitionOf tells whether dev is a partition, and of which disk, from
// lsblk (util-linux) and the kernel's /sys/class/block/NAME/partition.
func partitionOf(ctx context.Context, g guestRunner, dev string) (partition, error) {
	res, err := g.Exec(ctx, "lsblk", []string{"--nodeps", "--noheadings", "--raw", "--output", "TYPE,PKNAME", dev}, nil)
	if err != nil {
		return partition{}, missingTool(err, "lsblk", "util-linux")
	}
	if res.ExitCode != 0 {
		return partition{}, fmt.Errorf("lsblk %s in the guest: exit code %d: %s", dev, res.ExitCode, strings.TrimSpace(res.Stderr))
	}
	f := strings.Fields(strings.TrimSpace(res.Stdout))
	switch {
	case len(f) >= 1 && f[0] == "disk":
		return partition{}, nil
	case len(f) == 2 && f[0] == "part":
	case len(f) >= 1:
		return partition{}, fmt.Errorf("%s is a block device of type %q (lsblk): growing handles filesystems on a disk or "+
			"on a partition; grow an LVM volume, RAID or encrypted device in the guest yourself (e.g. pvresize, lvextend)", dev, f[0])
	default:
		return partition{}, fmt.Errorf("lsblk %s in the guest printed %q, not TYPE PKNAME", dev, res.Stdout)
	}
	sys := "/sys/class/block/" + path.Base(dev) + "/partition"
	res, err = g.Exec(ctx, "cat", []string{sys}, nil)
	if err != nil {
		return partition{}, missingTool(err, "cat", "coreutils")
	}
	n, perr := strconv.Atoi(strings.TrimSpace(res.Stdout))
	if res.ExitCode != 0 || perr != nil || n <= 0 {
		return partition{}, fmt.Errorf("%s: the partition number of %s is not readable (%s)", sys, dev, strings.TrimSpace(res.Stderr+res.Stdout))
	}
	return partition{disk: "/dev/" + unescapeRaw(f[1]), number: n}, nil
}

// growPartition grows the partition to the end of its disk: growpart
// (cloud-guest-utils) where installed, else sfdisk rewrites the partition's
// end and partx tells the kernel (what growpart does itself).
func growPartition(ctx context.Context, g guestRunner, p partition, report func(string)) error {
	n := strconv.Itoa(p.number)
	res, err := g.Exec(ctx, "growpart", []string{p.disk, n}, nil)
	switch {
	case err == nil && res.ExitCode == 0:
		return nil
	case err == nil && res.ExitCode == 1 && strings.Contains(res.Stdout, "NOCHANGE"):
		report(fmt.Sprintf("partition %d of %s already fills the disk", p.number, p.disk))
		return nil
	case err == nil:
		return fmt.Errorf("growpart %s %s in the guest: exit code %d: %s", p.disk, n, res.ExitCode, strings.TrimSpace(res.Stdout+" "+res.Stderr))
	case !errors.Is(err, ErrCommandMissing):
		return err
	}
	report("growpart is not installed in the guest: growing the partition with sfdisk and partx")
	// ", +": keep the partition's start, extend it to the largest size
	// available. --force: the disk is in use (mounted); --no-reread: the
	// kernel learns the new size from partx, which works on a disk in use.
	res, err = g.Exec(ctx, "sfdisk", []string{"--no-reread", "--force", "-N", n, p.disk}, []byte(", +\n"))
	if err != nil {
		return missingTool(err, "growpart or sfdisk", "cloud-guest-utils (growpart) or fdisk (sfdisk)")
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("sfdisk -N %s %s in the guest: exit code %d: %s", n, p.disk, res.ExitCode, strings.TrimSpace(res.Stderr))
	}
	return runTool(ctx, g, "partx", "util-linux", []string{"--update", "--nr", n, p.disk})
}

// fsGrower is how one filesystem type grows online.
type fsGrower struct {
	tool, pkg string
	args      func(mounted) []string
}

var fsGrowers = map[string]fsGrower{
	"ext2":  {"resize2fs", "e2fsprogs", func(m mounted) []string { return []string{m.source} }},
	"ext3":  {"resize2fs", "e2fsprogs", func(m mounted) []string { return []string{m.source} }},
	"ext4":  {"resize2fs", "e2fsprogs", func(m mounted) []string { return []string{m.source} }},
	"xfs":   {"xfs_growfs", "xfsprogs", func(m mounted) []string { return []string{m.target} }},
	"btrfs": {"btrfs", "btrfs-progs", func(m mounted) []string { return []string{"filesystem", "resize", "max", m.target} }},
}

// runTool runs a tool in the guest and fails on a non-zero exit code.
func runTool(ctx context.Context, g guestRunner, tool, pkg string, args []string) error {
	res, err := g.Exec(ctx, tool, args, nil)
	if err != nil {
		return missingTool(err, tool, pkg)
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("%s %s in the guest: exit code %d: %s", tool, strings.Join(args, " "), res.ExitCode, strings.TrimSpace(res.Stderr+" "+res.Stdout))
	}
	return nil
}

// missingTool names the package to install when err says the tool is missing.
func missingTool(err error, tool, pkg string) error {
	if errors.Is(err, ErrCommandMissing) {
		return fmt.Errorf("%s is not installed in the guest (package %s): %w", tool, pkg, err)
	}
	return err
}

// formatBytes prints a size in the largest binary unit that keeps one decimal.
func formatBytes(n uint64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	v, i := float64(n), 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f %s", v, units[i])
}
