// Package xmlschema is the XML-tree schema engine: it derives a
// terraform-plugin-framework schema from a libvirtxml document struct
// (Domain, Network, NWFilter, StoragePool, StorageVolume) by fixed rules, and converts
// documents to and from tftypes values without any per-field mapping code.
//
// Rules (docs/adr/0001-xml-tree-schema-engine.md explains why):
//   - Attribute names are the snake_case of the Go field names, split as
//     dmacvicar/libvirt 0.9 splits them (naming.go): VHostUser -> vhost_user,
//     IOThreadIDs -> io_thread_i_ds, VCPUs -> vcpus.
//   - A struct holding XML character data plus attributes, used as a single
//     element (a choice member too), flattens into its parent:
//     Memory{Value, Unit} -> memory, memory_unit (named after the XML
//     attributes); an RNG backend's Random{Device} -> random. Used as a list
//     element it is an object whose character data is named after its Go
//     field (hostnames[].hostname), and so is one whose text is CDATA
//     (metadata_cache.max_size = { value, unit }).
//   - Pointer structs are single nested objects, slices of structs are lists of
//     objects, []string is a list of strings, empty marker elements
//     (<readonly/>) are empty objects.
//   - Numbers are int64; strings stay strings, including libvirt's "yes"/"no".
//   - A struct that writes and reads itself as one XML attribute value
//     (libvirtxml's NWFilterField: "$IP", "0x0800", "22") is a string holding
//     that text, converted by its own MarshalXMLAttr and UnmarshalXMLAttr.
//   - Where libvirtxml derives an XML attribute from which member of a choice
//     struct is set (an interface's type from its source), the engine adds that
//     attribute as "type" beside the choice: setting either side is enough
//     (the type alone creates its member empty). State keeps what the user
//     wrote; an import fills both. Without either, libvirtxml's own default
//     applies (a <serial> is a pty).
//   - A struct type appears at most once on any path from the root: recursive
//     members (backing chains) stop after the first level.
//
// A short Policy per document type lists what differs from the default rule.
package xmlschema
