package admin

import (
	"encoding/binary"
	"fmt"
	"io"
)

// Frame kinds in a run response body.
const (
	frameStdout  byte = 'o'
	frameStderr  byte = 'e'
	frameExit    byte = 'x'
	frameRefused byte = '!'
)

const (
	frameHeader = 5        // kind byte + 4-byte length
	maxChunk    = 32 << 10 // output bytes per frame
	maxFrame    = 1 << 20  // largest payload a client accepts
)

// appendFrame appends one encoded frame to b.
func appendFrame(b []byte, kind byte, payload []byte) []byte {
	b = append(b, kind)
	b = binary.BigEndian.AppendUint32(b, uint32(len(payload)))
	return append(b, payload...)
}

// readFrame reads one frame. io.EOF means the stream ended cleanly between
// frames.
func readFrame(r io.Reader) (kind byte, payload []byte, err error) {
	var h [frameHeader]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		if err == io.ErrUnexpectedEOF {
			return 0, nil, fmt.Errorf("%w: truncated frame header", ErrProtocol)
		}
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(h[1:])
	if n > maxFrame {
		return 0, nil, fmt.Errorf("%w: frame of %d bytes", ErrProtocol, n)
	}
	payload = make([]byte, n)
	if _, err := io.ReadFull(r, payload); err != nil {
		return 0, nil, fmt.Errorf("%w: truncated frame: %w", ErrProtocol, err)
	}
	return h[0], payload, nil
}
