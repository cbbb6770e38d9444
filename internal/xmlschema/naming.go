package xmlschema

import (
	"strings"
	"unicode"
)

// snakeName turns a Go field name into the attribute name, the way
// dmacvicar/libvirt 0.9 names it (schema version 2): a capital after a
// lower-case letter starts a word (AutoPort -> auto_port); in a run of
// capitals, the last one starts a word when a lower-case letter follows
// (CPUSet -> cpu_set, IOThreadIDs -> io_thread_i_ds: the plural "s" is such
// a letter, so GIDs -> gi_ds, SRVs -> sr_vs); a single capital at the start
// of the name joins the word after it (VHostUser -> vhost_user, IPs -> ips,
// VSock -> vsock); digits do not split (E820Host -> e820host); a "v<digit>"
// version suffix stays with its word (IPv6 -> ipv6); and libvirt's words
// (words below) are never split, nor are the plurals of the acronyms in
// pluralAcronyms (VCPUs -> vcpus).
func snakeName(goName string) string { return splitWords(goName, false) }

// v1SnakeName is the naming rule of schema version 1, which kept every
// acronym plural whole (io_thread_ids, gids, srvs): UpgradeJSON reads state
// written with it.
func v1SnakeName(goName string) string { return splitWords(goName, true) }

// splitWords is snakeName, or v1SnakeName with wholePlurals.
func splitWords(goName string, wholePlurals bool) string {
	r := []rune(goName)
	var words []string
	start := 0
	for i := 1; i < len(r); i++ {
		if w := wordAt(r, start); w > 0 && i < start+w {
			// a known word is never split; it ends a word when it is followed
			// by an upper-case letter (QEMU|VDAgent, VMWare|DataCenterPath)
			if i == start+w-1 && i+1 < len(r) && unicode.IsUpper(r[i+1]) {
				words = append(words, string(r[start:i+1]))
				start = i + 1
				i++
			}
			continue
		}
		prev, cur := r[i-1], r[i]
		boundary := false
		switch {
		case unicode.IsUpper(cur) && unicode.IsLower(prev):
			// fooBar -> foo|Bar (version 1: an acronym plural's "s" stayed: IDs|X)
			boundary = !(wholePlurals && prev == 's' && i >= 2 && unicode.IsUpper(r[i-2]) && isAcronymPlural(r, i-1))
		case unicode.IsUpper(cur) && unicode.IsUpper(prev) && i+1 < len(r) && unicode.IsLower(r[i+1]):
			// ABCDef -> ABC|Def, unless "Def" is a version suffix (IPv6)
			// or the plural "s" of a listed acronym (CPUs; version 1: of
			// every acronym, IDs). A single capital at the start of the
			// name joins the word after it.
			plural := isAcronymPlural(r, i+1) && (wholePlurals || pluralAcronymEndsAt(r, start, i))
			boundary = (i-1 > start || start > 0) && !plural && !isVersionSuffix(r, i+1)
		}
		if boundary {
			words = append(words, string(r[start:i]))
			start = i
		}
	}
	words = append(words, string(r[start:]))
	for i, w := range words {
		words[i] = strings.ToLower(w)
	}
	return strings.Join(words, "_")
}

// isAcronymPlural reports whether r[i] is a lone plural "s" after an
// upper-case run: it is followed by the end of the name or by an upper-case letter.
func isAcronymPlural(r []rune, i int) bool {
	return r[i] == 's' && (i+1 == len(r) || unicode.IsUpper(r[i+1]))
}

// isVersionSuffix reports whether r[i] starts a "v<digit>" version suffix.
func isVersionSuffix(r []rune, i int) bool {
	return r[i] == 'v' && i+1 < len(r) && unicode.IsDigit(r[i+1])
}

// words are names libvirtxml writes as one word that the rules above would
// split: QEMUVDAgent -> qemu_vd_agent, VMWareDataCenterPath ->
// vmware_data_center_path.
var words = []string{"QEMU", "VMWare"}

// pluralAcronyms are the acronyms whose plural names a list and stays one
// word (VCPUs -> vcpus, RNGs -> rngs), as in dmacvicar/libvirt 0.9; other
// acronym plurals split before their last capital (IDs -> i_ds).
var pluralAcronyms = []string{"CPU", "VCPU", "RNG", "TPM", "IOMMU"}

// pluralAcronymEndsAt reports whether the capitals ending at r[end] (from
// the start of their run, or from the current word's start) are one of
// pluralAcronyms.
func pluralAcronymEndsAt(r []rune, start, end int) bool {
	from := end
	for from > start && unicode.IsUpper(r[from-1]) {
		from--
	}
	run := string(r[from : end+1])
	for _, a := range pluralAcronyms {
		if run == a {
			return true
		}
	}
	return false
}

// wordAt returns the length of the known word that starts r[i:], or 0.
func wordAt(r []rune, i int) int {
	for _, w := range words {
		if strings.HasPrefix(string(r[i:]), w) {
			return len([]rune(w))
		}
	}
	return 0
}

// legacySnakeName is the naming rule of schema version 0 (provider 0.1.x),
// which split every capital (v_host_user, d_bus): UpgradeJSON reads state
// written with it.
func legacySnakeName(goName string) string {
	r := []rune(goName)
	var words []string
	start := 0
	for i := 1; i < len(r); i++ {
		prev, cur := r[i-1], r[i]
		boundary := false
		switch {
		case unicode.IsUpper(cur) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			// fooBar -> foo|Bar, but an acronym plural's "s" stays: IDs|X.
			boundary = !(prev == 's' && i >= 2 && unicode.IsUpper(r[i-2]) && isAcronymPlural(r, i-1))
		case unicode.IsUpper(cur) && unicode.IsUpper(prev) && i+1 < len(r) && unicode.IsLower(r[i+1]):
			// ABCDef -> ABC|Def, unless "Def" is the plural "s" of the acronym
			// (IDs) or a version suffix (IPv6).
			boundary = !isAcronymPlural(r, i+1) && !isVersionSuffix(r, i+1)
		}
		if boundary {
			words = append(words, string(r[start:i]))
			start = i
		}
	}
	words = append(words, string(r[start:]))
	for i, w := range words {
		words[i] = strings.ToLower(w)
	}
	return strings.Join(words, "_")
}
