package cloudinit

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/kdomanski/iso9660"
)

// VolumeLabel is the volume identifier cloud-init's NoCloud source looks for.
const VolumeLabel = "cidata"

// Names of the files in the image, as cloud-init reads them.
const (
	UserDataFile      = "user-data"
	MetaDataFile      = "meta-data"
	NetworkConfigFile = "network-config"
	VendorDataFile    = "vendor-data"
)

// Config is the content of one NoCloud seed.
type Config struct {
	UserData      string
	MetaData      string
	NetworkConfig string
	VendorData    string
}

// File is one file of the image.
type File struct {
	Name    string // name cloud-init sees (Rock Ridge name)
	isoName string // ISO 9660 level 1 identifier seen by readers without Rock Ridge
	Content []byte
}

// Files lists the files Build writes for c: user-data and meta-data always
// (either may be empty), network-config and vendor-data only when non-empty.
func (c Config) Files() []File {
	files := []File{
		{Name: UserDataFile, isoName: "USER_DAT.;1", Content: []byte(c.UserData)},
		{Name: MetaDataFile, isoName: "META_DAT.;1", Content: []byte(c.MetaData)},
	}
	if c.NetworkConfig != "" {
		files = append(files, File{Name: NetworkConfigFile, isoName: "NETWORK_.;1", Content: []byte(c.NetworkConfig)})
	}
	if c.VendorData != "" {
		files = append(files, File{Name: VendorDataFile, isoName: "VENDOR_D.;1", Content: []byte(c.VendorData)})
	}
	// ECMA-119 9.3: directory records are ordered by file identifier.
	sort.Slice(files, func(i, j int) bool { return files[i].isoName < files[j].isoName })
	return files
}

const (
	sectorSize = 2048
	// Sector layout: 16 system-area sectors, the primary volume descriptor,
	// the terminator, the L and M path tables, the root directory, then data.
	pvdSector        = 16
	terminatorSector = 17
	lPathTableSector = 18
	mPathTableSector = 19
	rootDirSector    = 20
	firstDataSector  = 21
	// Linux reads ahead past the end of small images; genisoimage pads 150
	// sectors for the same reason. Padding keeps every read inside the image.
	trailingPadSectors = 150

	modeDir  = 0o040555
	modeFile = 0o100444
)

// epoch is the only timestamp in the image, so identical input yields
// identical bytes.
var epoch = time.Unix(0, 0).UTC()

// Build returns the ISO image for c. Identical configs give identical bytes.
func Build(c Config) ([]byte, error) {
	files := c.Files()

	// Allocate data extents in directory order.
	next := uint32(firstDataSector)
	extents := make([]uint32, len(files))
	for i, f := range files {
		if uint64(len(f.Content)) > math.MaxUint32 {
			return nil, fmt.Errorf("%s is %d bytes; an ISO 9660 file holds at most 4 GiB", f.Name, len(f.Content))
		}
		extents[i] = next
		next += sectorsFor(len(f.Content))
	}
	dataEnd := next
	totalSectors := dataEnd + trailingPadSectors

	root := &iso9660.DirectoryEntry{
		ExtentLocation:       rootDirSector,
		ExtentLength:         sectorSize,
		RecordingDateTime:    iso9660.RecordingTimestamp(epoch),
		FileFlags:            dirFlag,
		VolumeSequenceNumber: 1,
		Identifier:           "\x00",
	}

	dirData, err := rootDirectory(root, files, extents)
	if err != nil {
		return nil, err
	}

	img := make([]byte, int(totalSectors)*sectorSize)

	pvd, err := primaryVolumeDescriptor(root, totalSectors)
	if err != nil {
		return nil, err
	}
	copy(img[pvdSector*sectorSize:], pvd)
	copy(img[terminatorSector*sectorSize:], volumeDescriptorHeader(255))
	copy(img[lPathTableSector*sectorSize:], pathTable(binary.LittleEndian))
	copy(img[mPathTableSector*sectorSize:], pathTable(binary.BigEndian))
	copy(img[rootDirSector*sectorSize:], dirData)
	for i, f := range files {
		copy(img[int(extents[i])*sectorSize:], f.Content)
	}
	return img, nil
}

const dirFlag = 0x02 // ECMA-119 9.1.6 bit 1: directory

func sectorsFor(n int) uint32 {
	return uint32((n + sectorSize - 1) / sectorSize)
}

// volumeDescriptorHeader is bytes 0-6 of a volume descriptor (ECMA-119 8.1).
func volumeDescriptorHeader(typ byte) []byte {
	return []byte{typ, 'C', 'D', '0', '0', '1', 1}
}

func primaryVolumeDescriptor(root *iso9660.DirectoryEntry, totalSectors uint32) ([]byte, error) {
	stamp := iso9660.VolumeDescriptorTimestampFromTime(epoch)
	body := iso9660.PrimaryVolumeDescriptorBody{
		SystemIdentifier:              "LINUX",
		VolumeIdentifier:              VolumeLabel,
		VolumeSpaceSize:               int32(totalSectors),
		VolumeSetSize:                 1,
		VolumeSequenceNumber:          1,
		LogicalBlockSize:              sectorSize,
		PathTableSize:                 pathTableRecordLen,
		TypeLPathTableLoc:             lPathTableSector,
		TypeMPathTableLoc:             mPathTableSector,
		RootDirectoryEntry:            root,
		ApplicationIdentifier:         "TERRAFORM-PROVIDER-LIBVIRT CLOUDINIT",
		VolumeCreationDateAndTime:     stamp,
		VolumeModificationDateAndTime: stamp,
		FileStructureVersion:          1,
	}
	out, err := body.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("encoding primary volume descriptor: %w", err)
	}
	copy(out[0:7], volumeDescriptorHeader(1))
	return out, nil
}

// pathTableRecordLen is the size of a path table holding only the root
// (ECMA-119 9.4: 8 bytes + 1-byte identifier + 1 pad byte).
const pathTableRecordLen = 10

func pathTable(order binary.ByteOrder) []byte {
	rec := make([]byte, pathTableRecordLen)
	rec[0] = 1 // identifier length
	order.PutUint32(rec[2:6], rootDirSector)
	order.PutUint16(rec[6:8], 1) // the root is its own parent
	return rec
}

func rootDirectory(root *iso9660.DirectoryEntry, files []File, extents []uint32) ([]byte, error) {
	var buf bytes.Buffer

	self := root.Clone()
	// SP must come first in the root's "." record (SUSP 5.3); ER announces
	// Rock Ridge, which is what makes Linux use the NM names.
	self.SystemUse = concat(suspSP(), rrRR(rrFlagPX), rrPX(modeDir, 2), suspER())
	parent := root.Clone()
	parent.Identifier = "\x01"
	parent.SystemUse = concat(rrRR(rrFlagPX), rrPX(modeDir, 2))

	records := []*iso9660.DirectoryEntry{&self, &parent}
	for i, f := range files {
		records = append(records, &iso9660.DirectoryEntry{
			ExtentLocation:       int32(extents[i]),
			ExtentLength:         uint32(len(f.Content)),
			RecordingDateTime:    iso9660.RecordingTimestamp(epoch),
			VolumeSequenceNumber: 1,
			Identifier:           f.isoName,
			SystemUse:            concat(rrRR(rrFlagPX|rrFlagNM), rrPX(modeFile, 1), rrNM(f.Name)),
		})
	}
	for _, r := range records {
		b, err := r.MarshalBinary()
		if err != nil {
			return nil, fmt.Errorf("encoding directory record %q: %w", r.Identifier, err)
		}
		buf.Write(b)
	}
	if buf.Len() > sectorSize {
		return nil, fmt.Errorf("root directory needs %d bytes, more than one sector", buf.Len())
	}
	return buf.Bytes(), nil
}

func concat(parts ...[]byte) []byte {
	return bytes.Join(parts, nil)
}

// System Use entries (SUSP 1.10 / RRIP 1.09).

const (
	rrFlagPX = 0x01
	rrFlagNM = 0x08

	rripIdentifier = "RRIP_1991A"
	rripDescriptor = "ROCK RIDGE INTERCHANGE PROTOCOL 1.09: POSIX FILE NAMES AND ATTRIBUTES"
	rripSource     = "IEEE P1282 RRIP 1.09"
)

func suspSP() []byte { return []byte{'S', 'P', 7, 1, 0xBE, 0xEF, 0} }

func suspER() []byte {
	e := []byte{'E', 'R', 0, 1, byte(len(rripIdentifier)), byte(len(rripDescriptor)), byte(len(rripSource)), 1}
	e = append(e, rripIdentifier...)
	e = append(e, rripDescriptor...)
	e = append(e, rripSource...)
	e[2] = byte(len(e))
	return e
}

// rrRR is the RRIP 1.09 "RR" entry listing which Rock Ridge entries follow.
func rrRR(flags byte) []byte { return []byte{'R', 'R', 5, 1, flags} }

// rrPX is the RRIP 1.09 POSIX attributes entry: mode, links, uid, gid (both-endian).
func rrPX(mode uint32, links uint32) []byte {
	e := make([]byte, 36)
	copy(e, []byte{'P', 'X', 36, 1})
	iso9660.WriteInt32LSBMSB(e[4:12], int32(mode))
	iso9660.WriteInt32LSBMSB(e[12:20], int32(links))
	// uid and gid stay 0 (root), as on any read-only medium.
	return e
}

func rrNM(name string) []byte {
	e := []byte{'N', 'M', byte(5 + len(name)), 1, 0}
	return append(e, name...)
}
