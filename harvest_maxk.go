// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/monkeyllm/vine/envelope"
)

// harvestMaxKSetting is the operator's cap as the host gave it, blank
// when it gave none. The primitive is in the one signature table of the
// process, so its cap is the process's too.
var harvestMaxKSetting atomic.Pointer[string]

// SetHarvestMaxK sets the operator's cap on k (C.6c §2.3) for every
// harvest sweep in the process, from the setting's text as the operator
// wrote it: blank means HarvestDefaultMaxK. A setting that is not an
// integer >= 1 is kept, and every sweep refuses it with E_SCHEMA naming
// HarvestMaxKEnv, never rounding or defaulting it. The cap bounds the
// item count only; the budget stays the outer wall.
//
// Configuration reaches the library through the host: adapters/cli/vine
// passes MONKEYLLM_HARVEST_MAX_K here before every command, and a host
// embedding the engine calls it once at start-up. It is safe to call
// concurrently with sweeps.
func SetHarvestMaxK(setting string) { harvestMaxKSetting.Store(&setting) }

// HarvestMaxK is the cap sweeps clamp k to now: the operator's setting,
// or HarvestDefaultMaxK when there is none or it is malformed (the sweep
// itself refuses a malformed one). A consumer that keys work by the effective k
// (the answer store) reads it here.
func HarvestMaxK() int {
	n, err := parseHarvestMaxK()
	if err != nil {
		return HarvestDefaultMaxK
	}
	return n
}

// parseHarvestMaxK parses the operator's setting.
func parseHarvestMaxK() (int, error) {
	raw := ""
	if p := harvestMaxKSetting.Load(); p != nil {
		raw = strings.TrimSpace(*p)
	}
	if raw == "" {
		return HarvestDefaultMaxK, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 {
		return 0, envelope.New(envelope.Schema,
			fmt.Sprintf("harvest: %s must be an integer >= 1, got %q", HarvestMaxKEnv, raw),
			"fix the server's environment; it bounds how many items a sweep assembles")
	}
	return n, nil
}
