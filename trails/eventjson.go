// SPDX-License-Identifier: Apache-2.0

package trails

import (
	"encoding/json"
	"math"
	"strconv"
)

// appendJSON appends e as json.Marshal renders it, byte for byte, without
// reflection: every primitive call writes one, and the reflective encoder
// was a sixth of the trace's cost in a move. A value json.Marshal refuses
// (a NaN or infinite float) is refused the same way.
func (e Event) appendJSON(b []byte) ([]byte, error) {
	for _, f := range []*float64{&e.TS, &e.ElapsedMS, e.EmbedMS, e.DenseMS} {
		if f != nil && (math.IsNaN(*f) || math.IsInf(*f, 0)) {
			return json.Marshal(e)
		}
	}
	b = append(b, `{"ts":`...)
	b = appendJSONFloat(b, e.TS)
	b = append(b, `,"session":`...)
	b = appendJSONString(b, e.Session)
	b = append(b, `,"primitive":`...)
	b = appendJSONString(b, e.Primitive)
	b = append(b, `,"id":`...)
	if e.ID == nil {
		b = append(b, "null"...)
	} else {
		b = appendJSONString(b, *e.ID)
	}
	b = append(b, `,"tokens_in":`...)
	b = strconv.AppendInt(b, int64(e.TokensIn), 10)
	b = append(b, `,"tokens_out":`...)
	b = strconv.AppendInt(b, int64(e.TokensOut), 10)
	b = append(b, `,"elapsed_ms":`...)
	b = appendJSONFloat(b, e.ElapsedMS)
	if e.EmbedMS != nil {
		b = append(b, `,"embed_ms":`...)
		b = appendJSONFloat(b, *e.EmbedMS)
	}
	if e.DenseMS != nil {
		b = append(b, `,"dense_ms":`...)
		b = appendJSONFloat(b, *e.DenseMS)
	}
	if len(e.Extensions) > 0 {
		b = append(b, `,"extensions":[`...)
		for i, x := range e.Extensions {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, x)
		}
		b = append(b, ']')
	}
	return append(b, '}'), nil
}

// appendJSONFloat formats a finite float64 as encoding/json does: the
// shortest representation, exponent form only below 1e-6 or from 1e21,
// and a two-digit negative exponent shortened (e-07 → e-7).
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendJSONString quotes s as json.Marshal does. Sessions and primitive
// names are plain ASCII and node ids nearly always are, so those are
// copied between quotes; anything json.Marshal would escape (quotes,
// backslashes, control and HTML characters, non-ASCII text whose invalid
// bytes it replaces) goes through it.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
