// Package cloudinit writes NoCloud cloud-init ISO images.
//
// An image is an ISO 9660 volume labelled "cidata" holding the files
// user-data, meta-data and, when given, network-config and vendor-data, the
// layout cloud-init's NoCloud data source mounts and reads.
//
// The on-disk records are encoded with github.com/kdomanski/iso9660, but the
// layout is built here: that library's ImageWriter mangles names to ISO 9660
// d-characters ("user-data" becomes "user_data") and stamps the current time
// into the volume descriptor, while cloud-init needs the dashed lower-case
// names and the provider needs byte-identical images for identical inputs
// (the file name and checksum are derived from the content). So the image
// carries Rock Ridge (RRIP 1.09) names, which Linux prefers over the 8.3 ISO
// names when it mounts the volume, and every timestamp is the Unix epoch.
package cloudinit
