package libvirtops

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/digitalocean/go-libvirt"
	"libvirt.org/go/libvirtxml"

	"github.com/virtxml/terraform-provider-libvirt/internal/libvirtconn"
)

// Secret is the adapter for secrets, addressed by UUID.
type Secret struct{ c *libvirtconn.Client }

// Secrets returns the secret adapter on this connection.
func Secrets(c *libvirtconn.Client) Secret { return Secret{c: c} }

// secretUsageNumbers are libvirt's numbers of the XML usage types.
var secretUsageNumbers = map[string]libvirt.SecretUsageType{
	"volume": libvirt.SecretUsageTypeVolume,
	"ceph":   libvirt.SecretUsageTypeCeph,
	"iscsi":  libvirt.SecretUsageTypeIscsi,
	"tls":    libvirt.SecretUsageTypeTLS,
	"vtpm":   libvirt.SecretUsageTypeVtpm,
}

// LookUp resolves a secret's UUID, or a usage id (volume path or name).
func (s Secret) LookUp(ctx context.Context, importID string) (id string, err error) {
	err = s.c.Do(ctx, func(l *libvirt.Libvirt) error {
		id, err = secretByImportID(l, importID)
		return err
	})
	return id, err
}

func secretByImportID(l *libvirt.Libvirt, importID string) (string, error) {
	if u, err := ParseUUID(importID); err == nil {
		s, err := l.SecretLookupByUUID(u)
		if err != nil {
			return "", err
		}
		return UUIDString(s.UUID), nil
	}
	all, _, err := l.ConnectListAllSecrets(1, 0)
	if err != nil {
		return "", err
	}
	var found []string
	for _, s := range all {
		if s.UsageID == importID {
			found = append(found, UUIDString(s.UUID))
		}
	}
	sort.Strings(found)
	switch len(found) {
	case 0:
		return "", fmt.Errorf("no secret has the UUID or usage id %q (virsh secret-list shows them)", importID)
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("usage id %q is used by %d secrets of different usage types (%s): import by UUID",
		importID, len(found), strings.Join(found, ", "))
}

// Fetch reads the secret's definition. The value is not part of it.
func (s Secret) Fetch(ctx context.Context, id string) (*libvirtxml.Secret, error) {
	sec, err := secretRef(id)
	if err != nil {
		return nil, err
	}
	return fetchXML[libvirtxml.Secret](ctx, s.c, "secret", func(l *libvirt.Libvirt) (string, error) { return l.SecretGetXMLDesc(sec, 0) })
}

// Exists says whether a secret with this UUID is defined.
func (s Secret) Exists(ctx context.Context, id string) (bool, error) {
	sec, err := secretRef(id)
	if err != nil {
		return false, err
	}
	err = s.c.Do(ctx, func(l *libvirt.Libvirt) error {
		_, err := l.SecretLookupByUUID(sec.UUID)
		return err
	})
	if libvirtconn.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

// UsageTaken returns the UUID of the secret with this usage, or "" when
// there is none (or the usage type is not one libvirt knows): libvirt
// allows one secret per usage.
func (s Secret) UsageTaken(ctx context.Context, usageType, usageID string) (string, error) {
	num, ok := secretUsageNumbers[usageType]
	if !ok {
		return "", nil
	}
	var uuid string
	err := s.c.Do(ctx, func(l *libvirt.Libvirt) error {
		existing, err := l.SecretLookupByUsage(int32(num), usageID)
		if err == nil {
			uuid = UUIDString(existing.UUID)
			return nil
		}
		if libvirtconn.IsNotFound(err) {
			return nil
		}
		return err
	})
	return uuid, err
}

// Create defines doc (whose UUID is set) and sets its value when hasValue;
// a secret whose value cannot be set is undefined again (it is of no use).
func (s Secret) Create(ctx context.Context, doc *libvirtxml.Secret, value []byte, hasValue bool) error {
	xml, err := doc.Marshal()
	if err != nil {
		return fmt.Errorf("writing secret XML: %w", err)
	}
	return s.c.Do(ctx, func(l *libvirt.Libvirt) error {
		sec, err := l.SecretDefineXML(xml, uint32(libvirt.SecretDefineValidate))
		if err != nil {
			return fmt.Errorf("defining secret: %w", err)
		}
		if !hasValue {
			return nil
		}
		if err := l.SecretSetValue(sec, value, 0); err != nil {
			// leave nothing behind: a secret without its value is of no use
			if uerr := l.SecretUndefine(sec); uerr != nil && !libvirtconn.IsNotFound(uerr) {
				return fmt.Errorf("setting the value of secret %s: %w (undefining it failed too: %v; remove it with virsh secret-undefine %s)",
					doc.UUID, err, uerr, doc.UUID)
			}
			return fmt.Errorf("setting the value of secret %s: %w (the secret was undefined again)", doc.UUID, err)
		}
		return nil
	})
}

// Update redefines the secret with doc when it is not nil (a redefinition
// keeps the value libvirt holds), then sets value when setValue.
func (s Secret) Update(ctx context.Context, id string, doc *libvirtxml.Secret, value []byte, setValue bool) error {
	sec, err := secretRef(id)
	if err != nil {
		return err
	}
	var xml string
	if doc != nil {
		if xml, err = doc.Marshal(); err != nil {
			return fmt.Errorf("writing secret XML: %w", err)
		}
	}
	return s.c.Do(ctx, func(l *libvirt.Libvirt) error {
		if doc != nil {
			if _, err := l.SecretDefineXML(xml, uint32(libvirt.SecretDefineValidate)); err != nil {
				return fmt.Errorf("redefining secret %s: %w", id, err)
			}
		}
		if setValue {
			if err := l.SecretSetValue(sec, value, 0); err != nil {
				return fmt.Errorf("setting the value of secret %s: %w", id, err)
			}
		}
		return nil
	})
}

// Remove undefines the secret.
func (s Secret) Remove(ctx context.Context, id string) error {
	sec, err := secretRef(id)
	if err != nil {
		return err
	}
	return s.c.Do(ctx, func(l *libvirt.Libvirt) error { return l.SecretUndefine(sec) })
}

// SecretValue is what Value reads: libvirt never returns the value of a
// private secret; a secret may have no value at all.
type SecretValue struct {
	Private  bool
	HasValue bool
	Value    []byte
}

// Value reads the secret's value where libvirt returns it. Privacy is read
// from libvirt, not assumed: a configuration may leave it out.
func (s Secret) Value(ctx context.Context, id string) (v SecretValue, err error) {
	sec, err := secretRef(id)
	if err != nil {
		return v, err
	}
	err = s.c.Do(ctx, func(l *libvirt.Libvirt) error {
		v = SecretValue{HasValue: true}
		x, err := l.SecretGetXMLDesc(sec, 0)
		if err != nil {
			return err
		}
		var doc libvirtxml.Secret
		if err := doc.Unmarshal(x); err != nil {
			return fmt.Errorf("parsing secret XML: %w", err)
		}
		if v.Private = YesWord(doc.Private); v.Private {
			return nil
		}
		v.Value, err = l.SecretGetValue(sec, 0)
		if libvirtconn.IsNotFound(err) {
			v.HasValue, err = false, nil // the secret exists (read above): it has no value
		}
		return err
	})
	return v, err
}

// YesWord says whether a libvirt yes/no attribute value means yes.
func YesWord(s string) bool { return s == "yes" || s == "true" || s == "on" }
