package xmlschema

import "libvirt.org/go/libvirtxml"

// SecretPolicy is the policy of libvirt_secret. The secret's value is not
// part of the document (libvirt sets it with virSecretSetValue): the
// resource holds it as an attribute of its own.
var SecretPolicy = Policy{
	Root: "secret",
	Computed: []string{
		"uuid", // generated when not given
	},
}

// Secret returns the engine model of libvirt secrets.
func Secret() *Model[libvirtxml.Secret] { return NewModel[libvirtxml.Secret](SecretPolicy) }
