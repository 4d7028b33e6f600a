// SPDX-License-Identifier: Apache-2.0

package wire

import (
	"bytes"
	"encoding/json"

	"github.com/monkeyllm/vine"
)

// Encode renders a result the way every surface sends it (spec 08 §4.3
// r1): compact, keys in the result type's own order, non-ASCII raw and
// no HTML escaping, so the MCP text block parses to exactly what REST
// returns for the same call.
func Encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Refusal renders err as the envelope {"error":{code,message,hint,...}}.
// An error that is not an envelope becomes E_INTERNAL naming op and the
// failure's type only (C.12 r5).
func Refusal(op string, err error) []byte {
	return vine.AsError(op, err).Body()
}
