// Command rngwords writes internal/xmlschema/words_gen.go: the XML
// attributes that libvirt's grammar allows only "yes"/"no" or "on"/"off"
// for, read from its RelaxNG schemas (package rngwords).
//
//	go run ./tools/rngwords [-schemas /usr/share/libvirt/schemas] [-out internal/xmlschema/words_gen.go]
package main

import (
	"flag"
	"fmt"
	"log"
	"os"

	"github.com/virtxml/terraform-provider-libvirt/internal/rngwords"
)

func main() {
	dir := flag.String("schemas", "/usr/share/libvirt/schemas", "libvirt's RelaxNG schemas")
	out := flag.String("out", "internal/xmlschema/words_gen.go", "the Go file to write")
	flag.Parse()
	t, err := rngwords.Table(*dir)
	if err != nil {
		log.Fatal(err)
	}
	src, err := rngwords.GoSource(t, "xmlschema")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatal(err)
	}
	n := 0
	for _, m := range t {
		n += len(m)
	}
	fmt.Printf("rngwords: %d attributes in %d documents -> %s\n", n, len(t), *out)
}
