package xmlschema

// Policy lists what differs from the default rule for one document type. It is
// meant to stay short and reviewed: every entry says why in a comment where it
// is declared.
type Policy struct {
	// Root is the XML root element name, for descriptions ("domain").
	Root string
	// Skip removes fields, named "GoType.Field" (applies wherever the type occurs).
	Skip map[string]string
	// Rename forces a name for a field ("GoType.Field" -> name), for reserved
	// words and clashes.
	Rename map[string]string
	// Element names the XML element of a field that libvirtxml marshals by
	// its own code without a tag ("GoType.Field" -> element), for
	// descriptions; the field name stands there otherwise.
	Element map[string]string
	// Computed lists attribute paths (dotted, list elements without index) whose
	// value libvirt chooses when the user leaves them out, and that users need
	// to read (a generated MAC, the UUID).
	Computed []string
	// Volatile lists computed paths whose value changes by itself (pool and
	// volume sizes): they are unknown in every plan that changes the resource,
	// where other computed values keep their prior value.
	Volatile []string
	// Required lists top-level attributes libvirt refuses to define the
	// document without (a name): required in the schema, so that validate
	// reports them before any plan.
	Required []string
	// Elided gives attribute paths (string leaves) and the value libvirt
	// leaves out of the definition it stores although it applies it: a value
	// it fills in again when the domain starts. Reading the definition back
	// then finds nothing there; Reconcile keeps the user's value when it is
	// this one and libvirt reports none, and list elements still match.
	// Another value libvirt does store, so it shows as drift as usual.
	Elided map[string]string
	// Status gives attribute paths of elements libvirt writes itself while
	// something runs (a disk's mirror during a block copy) and drops from a
	// definition it is given, with the reason. They are read back like any
	// other value; a configuration that sets one is refused at validate with
	// that reason, instead of an apply that ends in "inconsistent result".
	Status map[string]string
	// Sensitive lists attribute paths holding secrets.
	Sensitive []string
	// Identity gives, per list path, the element attribute paths that identify
	// an element across reads (a disk by target device, an interface by MAC).
	Identity map[string][]string
	// DefaultUnit is the unit libvirt assumes for scaled values without a unit
	// in this document ("KiB" for domains, "bytes" for storage).
	DefaultUnit string
	// Extra adds attributes that are not XML but tell the provider what to
	// do at one place of the tree (dmacvicar/libvirt 0.9.x's wait_for_ip on
	// an interface). They never reach libvirt: FromValues ignores them,
	// Reconcile keeps the value the plan had, matching ignores them.
	Extra []ExtraAttribute
	// WriteOnly lists string leaves (dotted paths) holding secrets that get
	// a write-only twin "<leaf>_wo" and its "<leaf>_wo_version" beside them
	// (writeonly.go): the secret then reaches libvirt but never a plan or
	// the state.
	WriteOnly []string
}

// ExtraAttribute is an object attribute of strings and numbers added at
// Path (a list or object path) under Name.
type ExtraAttribute struct {
	Path, Name, Description string
	// Fields are the object's attributes: name -> description; numbers
	// lists the ones that are numbers (the others are strings).
	Fields  map[string]string
	Numbers []string
}
