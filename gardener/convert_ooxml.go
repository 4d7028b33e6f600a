package gardener

import (
	"archive/zip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
)

// ooxmlPackage is an Office Open XML zip (xlsx, docx): parts by name and
// the relationships that connect them. Only archive/zip and encoding/xml
// are used, so reading a workbook or a document needs no dependency.
type ooxmlPackage struct {
	parts map[string]*zip.File
	lower map[string]*zip.File // case-insensitive fallback for odd writers
}

func newOOXMLPackage(zr *zip.Reader) *ooxmlPackage {
	p := &ooxmlPackage{parts: map[string]*zip.File{}, lower: map[string]*zip.File{}}
	for _, f := range zr.File {
		name := strings.TrimPrefix(strings.ReplaceAll(f.Name, `\`, "/"), "/")
		p.parts[name] = f
		p.lower[strings.ToLower(name)] = f
	}
	return p
}

func (p *ooxmlPackage) has(name string) bool { return p.find(name) != nil }

func (p *ooxmlPackage) find(name string) *zip.File {
	if f, ok := p.parts[name]; ok {
		return f
	}
	return p.lower[strings.ToLower(name)]
}

// open returns an XML decoder over a part; close releases it.
func (p *ooxmlPackage) open(name string) (dec *xml.Decoder, closeFn func(), err error) {
	f := p.find(name)
	if f == nil {
		return nil, nil, fmt.Errorf("part %s is missing", name)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, nil, fmt.Errorf("part %s: %w", name, err)
	}
	return xml.NewDecoder(rc), func() { rc.Close() }, nil
}

// relationship is one entry of a .rels part, its target resolved to a
// part name.
type relationship struct {
	id, typ, target string
}

// relationships reads the .rels part of the part named owner ("" for the
// package itself). A missing .rels part is no relationships.
func (p *ooxmlPackage) relationships(owner string) ([]relationship, error) {
	dir, base := path.Split(owner)
	relsName := dir + "_rels/" + base + ".rels"
	if !p.has(relsName) {
		return nil, nil
	}
	dec, done, err := p.open(relsName)
	if err != nil {
		return nil, err
	}
	defer done()
	var rels []relationship
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return rels, nil
		}
		if err != nil {
			return nil, fmt.Errorf("part %s: %w", relsName, err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Local != "Relationship" || xmlAttr(se, "TargetMode") == "External" {
			continue
		}
		rels = append(rels, relationship{
			id:     xmlAttr(se, "Id"),
			typ:    xmlAttr(se, "Type"),
			target: resolveTarget(dir, xmlAttr(se, "Target")),
		})
	}
}

// resolveTarget turns a relationship target into a part name: absolute
// targets start at the package root, relative ones at the owner's folder.
func resolveTarget(dir, target string) string {
	target = strings.ReplaceAll(target, `\`, "/")
	if strings.HasPrefix(target, "/") {
		return strings.TrimPrefix(path.Clean(target), "/")
	}
	return strings.TrimPrefix(path.Clean("/"+dir+target), "/")
}

// relTarget is the first target whose type ends with suffix
// ("/officeDocument", "/styles"), else fallback.
func relTarget(rels []relationship, suffix, fallback string) string {
	for _, r := range rels {
		if strings.HasSuffix(r.typ, suffix) {
			return r.target
		}
	}
	return fallback
}

// xmlAttr is the value of the attribute with the given local name.
func xmlAttr(se xml.StartElement, local string) string {
	for _, a := range se.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}
