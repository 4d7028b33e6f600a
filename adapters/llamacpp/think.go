// SPDX-License-Identifier: Apache-2.0

package llamacpp

import "github.com/monkeyllm/vine/model"

// StripThinking removes reasoning from a reply (J.10.8); it is
// model.StripThinking, which every reader of a model's content shares.
func StripThinking(s string) (out string, stripped, unclosed bool) { return model.StripThinking(s) }
