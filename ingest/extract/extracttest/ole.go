package extracttest

import (
	"encoding/binary"
	"unicode/utf16"
)

// OLE writes an OLE2 compound file (CFB version 3, 512-byte sectors) whose
// root storage holds empty streams with the given names: "WordDocument"
// for a Word 97–2003 .doc, "EncryptedInfo" and "EncryptedPackage" for a
// password-protected OOXML file. Only the structure a reader sniffs is
// real; the streams carry no data.
func OLE(streams ...string) []byte {
	const endOfChain, freeSect, fatSect, noStream = 0xFFFFFFFE, 0xFFFFFFFF, 0xFFFFFFFD, 0xFFFFFFFF
	names := append([]string{"Root Entry"}, streams...)
	dirSectors := (len(names)*128 + 511) / 512
	out := make([]byte, 512*(2+dirSectors))
	le := binary.LittleEndian
	copy(out, []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1})
	le.PutUint16(out[24:], 0x3E) // minor version
	le.PutUint16(out[26:], 3)    // major version
	le.PutUint16(out[28:], 0xFFFE)
	le.PutUint16(out[30:], 9) // sector shift: 512
	le.PutUint16(out[32:], 6) // mini sector shift: 64
	le.PutUint32(out[44:], 1) // FAT sectors
	le.PutUint32(out[48:], 1) // first directory sector
	le.PutUint32(out[56:], 4096)
	le.PutUint32(out[60:], endOfChain) // no mini FAT
	le.PutUint32(out[68:], endOfChain) // no DIFAT sectors
	for i := 76; i < 512; i += 4 {
		le.PutUint32(out[i:], freeSect)
	}
	le.PutUint32(out[76:], 0) // the FAT is sector 0
	fat := out[512:1024]
	for i := 0; i < 128; i++ {
		le.PutUint32(fat[4*i:], freeSect)
	}
	le.PutUint32(fat, fatSect)
	for s := 1; s <= dirSectors; s++ {
		next := uint32(s + 1)
		if s == dirSectors {
			next = endOfChain
		}
		le.PutUint32(fat[4*s:], next)
	}
	for i, name := range names {
		e := out[1024+128*i : 1024+128*(i+1)]
		u := utf16.Encode([]rune(name))
		for j, c := range u[:min(len(u), 31)] {
			le.PutUint16(e[2*j:], c)
		}
		le.PutUint16(e[64:], uint16(2*(min(len(u), 31)+1)))
		e[66], e[67] = 2, 1 // a stream, black
		if i == 0 {
			e[66] = 5 // the root storage
		}
		le.PutUint32(e[68:], noStream) // left sibling
		le.PutUint32(e[72:], noStream) // right sibling, set below
		le.PutUint32(e[76:], noStream) // child
		if i+1 < len(names) && i > 0 {
			le.PutUint32(e[72:], uint32(i+1))
		}
		if i == 0 && len(names) > 1 {
			le.PutUint32(e[76:], 1)
		}
		le.PutUint32(e[116:], endOfChain) // start sector: empty stream
	}
	return out
}
