package xmlschema

import (
	"strings"
	"unicode"
)

// snakeName turns a Go field name into the attribute name:
// VirtIO -> virt_io, AutoPort -> auto_port, IPs -> ips, IOThreadIDs ->
// io_thread_ids, CPUSet -> cpu_set, UNIX -> unix.
func snakeName(goName string) string {
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

// isAcronymPlural reports whether r[i] is a lone plural "s" after an
// upper-case run: it is followed by the end of the name or by an upper-case letter.
func isAcronymPlural(r []rune, i int) bool {
	return r[i] == 's' && (i+1 == len(r) || unicode.IsUpper(r[i+1]))
}

// isVersionSuffix reports whether r[i] starts a "v<digit>" version suffix.
func isVersionSuffix(r []rune, i int) bool {
	return r[i] == 'v' && i+1 < len(r) && unicode.IsDigit(r[i+1])
}
